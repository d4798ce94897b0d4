import ArgumentParser
import RippleBlueZ
import RippleSimulatorServing

/// `ripple-ble write`: writes bytes or text to a characteristic.
struct WriteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "write", abstract: "Connect to a peripheral and write a value to a characteristic.")

    @OptionGroup var target: TargetOptions

    @Argument(help: "The peripheral's address (C0:FF:EE:00:00:01).")
    var address: String

    @Argument(help: "The characteristic: a UUID (2a19, 0x2A19, 128-bit), or SERVICE/CHARACTERISTIC.")
    var characteristic: String

    @Argument(help: "The value: hexadecimal bytes (0a1b, \"0a 1b\", 0x0a1b), or text with --text.")
    var value: String

    @Flag(help: "Write the value as UTF-8 text.")
    var text = false

    @Flag(help: "Write without response (a command; no answer from the peripheral).")
    var withoutResponse = false

    func validate() throws {
        _ = try ArgumentParsing.address(address)
        _ = try ArgumentParsing.characteristic(characteristic)
        _ = try ValueFormat.parse(value, isText: text)
    }

    func run() async throws {
        try await runReportingFailures {
            let address = try ArgumentParsing.address(address)
            let reference = try ArgumentParsing.characteristic(characteristic)
            let bytes = try ValueFormat.parse(value, isText: text)
            try await BluetoothSession.with(target) { session in
                let peripheral = try await session.connect(address, within: target.timeLimit)
                try await peripheral.writeValue(
                    bytes, to: reference, type: withoutResponse ? .withoutResponse : .withResponse)
                Output.progress("wrote \(bytes.count) byte\(bytes.count == 1 ? "" : "s") to \(reference)")
                try await peripheral.disconnectPeripheral()
            }
        }
    }
}
