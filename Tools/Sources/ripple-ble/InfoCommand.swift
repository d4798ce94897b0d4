import ArgumentParser
import RippleBlueZ
import RippleSimulatorServing

/// `ripple-ble info`: a peripheral's GATT tree, with the assigned names of its services,
/// characteristics and descriptors, and the values of those that can be read.
struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Connect to a peripheral and print its GATT tree with assigned names and readable values.")

    @OptionGroup var target: TargetOptions

    @Argument(help: "The peripheral's address (C0:FF:EE:00:00:01).")
    var address: String

    @Flag(help: "Do not read the readable characteristics' values.")
    var noValues = false

    @Option(help: "How values are shown: hex, text, decimal, or auto (decoded where the format is known).")
    var format: ValueFormat = .auto

    func validate() throws {
        _ = try ArgumentParsing.address(address)
    }

    func run() async throws {
        try await runReportingFailures {
            let address = try ArgumentParsing.address(address)
            try await BluetoothSession.with(target) { session in
                let peripheral = try await session.connect(address, within: target.timeLimit)
                Output.line("\(peripheral)")
                for service in peripheral.services {
                    Output.line("  service \(Self.label(service.uuid))\(service.isPrimary ? "" : " (secondary)")")
                    for characteristic in service.characteristics {
                        var line =
                            "    characteristic \(Self.label(characteristic.uuid)) [\(characteristic.flags.joined(separator: ", "))]"
                        if !noValues, characteristic.isReadable {
                            let reference = CharacteristicReference(characteristic.uuid, in: service.uuid)
                            do {
                                let value = try await peripheral.readValue(reference)
                                line += " = " + format.show(value, of: characteristic.uuid)
                            } catch {
                                line += " (read failed: \(error))"
                            }
                        }
                        Output.line(line)
                        for descriptor in characteristic.descriptors {
                            Output.line("      descriptor \(Self.label(descriptor.uuid))")
                        }
                    }
                }
                try await peripheral.disconnectPeripheral()
            }
        }
    }

    /// `0x2a37 Heart Rate Measurement`, or the full UUID for one without an assigned name.
    static func label(_ uuid: BluetoothUUID) -> String {
        uuid.name.map { "\(uuid) \($0)" } ?? uuid.uuidString
    }
}
