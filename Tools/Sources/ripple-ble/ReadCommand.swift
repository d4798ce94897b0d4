import ArgumentParser
import RippleBlueZ
import RippleSimulatorServing

/// `ripple-ble read`: one characteristic's value.
struct ReadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read", abstract: "Connect to a peripheral and print a characteristic's value.")

    @OptionGroup var target: TargetOptions

    @Argument(help: "The peripheral's address (C0:FF:EE:00:00:01).")
    var address: String

    @Argument(help: "The characteristic: a UUID (2a19, 0x2A19, 128-bit), or SERVICE/CHARACTERISTIC.")
    var characteristic: String

    @Option(help: "How the value is shown: hex, text, decimal, or auto (decoded where the format is known).")
    var format: ValueFormat = .hex

    func validate() throws {
        _ = try ArgumentParsing.address(address)
        _ = try ArgumentParsing.characteristic(characteristic)
    }

    func run() async throws {
        try await runReportingFailures {
            let address = try ArgumentParsing.address(address)
            let reference = try ArgumentParsing.characteristic(characteristic)
            try await BluetoothSession.with(target) { session in
                let peripheral = try await session.connect(address, within: target.timeLimit)
                let value = try await peripheral.readValue(reference)
                Output.line(format.show(value, of: reference.uuid))
                try await peripheral.disconnectPeripheral()
            }
        }
    }
}
