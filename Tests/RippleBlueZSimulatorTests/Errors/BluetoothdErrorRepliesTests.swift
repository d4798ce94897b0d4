import RippleDBus
import Testing

@testable import RippleBlueZSimulator

/// The simulator answers failures with bluetoothd's own error names and messages, and describes its own
/// failures in a sentence.
@Suite struct BluetoothdErrorRepliesTests {
    static let attCodes: [(UInt8, String, String)] = [
        (0x02, "org.bluez.Error.NotPermitted", "Read not permitted"),
        (0x03, "org.bluez.Error.NotPermitted", "Write not permitted"),
        (0x05, "org.bluez.Error.NotPermitted", "Not paired"),
        (0x0F, "org.bluez.Error.NotPermitted", "Not paired"),
        (0x0C, "org.bluez.Error.NotPermitted", "Not paired"),
        (0x07, "org.bluez.Error.InvalidArguments", "Invalid offset"),
        (0x0D, "org.bluez.Error.InvalidArguments", "Invalid Length"),
        (0x08, "org.bluez.Error.NotAuthorized", "Operation Not Authorized"),
        (0x06, "org.bluez.Error.NotSupported", "Operation is not supported"),
        (0x00, "org.bluez.Error.Failed", "Operation failed"),
        (0x0E, "org.bluez.Error.Failed", "Operation failed with ATT error: 0x0e"),
        (0x80, "org.bluez.Error.Failed", "Operation failed with ATT error: 0x80"),
    ]

    @Test(arguments: attCodes)
    func anATTErrorIsRepliedAsBluetoothdRepliesIt(code: UInt8, name: String, message: String) {
        let error = BlueZError.attError(code)
        #expect(error.name == name)
        #expect(error.message == message)
        #expect(error.dbusError == .remote(name: name, message: message))
    }

    @Test func theNamedErrorsCarryBluetoothdsNamesAndMessages() {
        #expect(BlueZError.inProgress.description == "org.bluez.Error.InProgress: In Progress")
        #expect(BlueZError.busy.description == "org.bluez.Error.InProgress: Operation already in progress")
        #expect(BlueZError.notReady.description == "org.bluez.Error.NotReady: Resource Not Ready")
        #expect(BlueZError.failed("Not connected").description == "org.bluez.Error.Failed: Not connected")
        #expect(BlueZError.invalidArguments == BlueZError.invalidArguments("Invalid arguments in method call"))
        #expect(BlueZError.noSuchAdapter.name.hasPrefix(BlueZErrorName.prefix))
    }

    @Test func simulatorErrorsSayWhatWentWrong() {
        let address: BluetoothAddress = "C0:FF:EE:00:00:01"
        #expect(
            SimulatorError.invalidWorld("two adapters hci0").description == "invalid simulated world: two adapters hci0"
        )
        #expect(
            SimulatorError.unknownPeripheral(address).description
                == "no simulated peripheral has the address C0:FF:EE:00:00:01")
        #expect(
            SimulatorError.notConnected(address).description
                == "the simulated peripheral C0:FF:EE:00:00:01 is not connected")
        #expect(SimulatorError.notRunning.description == "the simulator is not running")
        #expect(SimulatorError.bus(.disconnected).description.hasPrefix("the simulator's bus failed: "))
    }
}
