// An LED driven by write-and-listen: the board's control point answers each command with a
// notification, and the LED's own characteristic shows the result.
//
//   swift run --package-path Tools ripple-example-led            # toggles the simulated board's LED
//   swift run --package-path Tools ripple-example-led on --real  # a real board with the Ripple LED service
import ArgumentParser
import Ripple
import RippleBlueZ
import RippleExampleOptions
import RippleExampleSupport

/// The Ripple LED/button board's vendor service and characteristics.
enum LEDBoard {
    static let service = BluetoothUUID(high: 0x5249_504C_0000_4C45, low: 0x4442_7574_746F_6E00)
    static let led = CharacteristicReference(BluetoothUUID(high: 0x5249_504C_0001_4C45, low: 0x4442_7574_746F_6E00))
    static let controlPoint = CharacteristicReference(
        BluetoothUUID(high: 0x5249_504C_0003_4C45, low: 0x4442_7574_746F_6E00))
}

/// What to do with the LED.
enum LEDAction: String, ExpressibleByArgument, CaseIterable {
    case on, off, toggle

    /// The control point command: set (0x01) with the state, or toggle (0x03).
    var command: [UInt8] {
        switch self {
        case .on: [0x01, 1]
        case .off: [0x01, 0]
        case .toggle: [0x03]
        }
    }
}

@main
struct LEDControl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ripple-example-led",
        abstract: "Switches a board's LED through its control point (write-and-listen) and reads it back.")

    @Argument(help: "on, off or toggle.")
    var action: LEDAction = .toggle

    @OptionGroup var bluetooth: BluetoothOptions

    func run() async throws {
        let bluetooth = self.bluetooth
        let action = self.action
        try await ExampleSession.run(bluetooth, simulating: [.ledButton()]) { central in
            print("Scanning for the LED board…")
            let found = try await central.startDiscovery(filter: .services([LEDBoard.service]))
                .first(address: bluetooth.address).values.first { _ in true }
            guard let found else { return }
            let board = try await central.connectPeripheral(to: found.address)
            print("Connected to \(board.name ?? "?") (\(board.address))")
            let before = try await board.readValue(LEDBoard.led, as: UInt8.self)
            print("LED is \(before == 1 ? "on" : "off")")
            let answer = try await board.writeAndListen(
                action.command, to: LEDBoard.controlPoint, reply: LEDBoard.controlPoint
            )
            .values.first { _ in true }
            print(
                "Sent \(hex(action.command)), the board answered \(hex(answer ?? []))"
                    + (answer?.dropFirst(2).first == 1 ? " (done)" : ""))
            let after = try await board.readValue(LEDBoard.led, as: UInt8.self)
            print("LED is \(after == 1 ? "on" : "off")")
            try await board.disconnectPeripheral()
        }
    }
}

/// "10 03 01".
func hex(_ bytes: [UInt8]) -> String {
    Hex.string(bytes, separator: " ")
}
