import RippleDBus
import Testing

@testable import RippleBlueZ

/// bluetoothd's D-Bus errors become `BluetoothError`s of the right kind, keeping its name and message.
@Suite struct BluetoothdErrorKindTests {
    static let names: [(String, String, BluetoothError.Kind)] = [
        ("org.bluez.Error.NotReady", "Resource Not Ready", .poweredOff),
        ("org.bluez.Error.NotConnected", "Not Connected", .notConnected),
        ("org.bluez.Error.NotPermitted", "Read not permitted", .notPermitted),
        ("org.bluez.Error.NotPermitted", "Write not permitted", .notPermitted),
        // bluetoothd 5.66's answer to ATT errors 0x05, 0x0F and 0x0C: pairing is what is missing.
        ("org.bluez.Error.NotPermitted", "Not paired", .insufficientAuthentication),
        ("org.bluez.Error.NotAuthorized", "Operation Not Authorized", .insufficientAuthorization),
        ("org.bluez.Error.AuthenticationFailed", "Authentication Failed", .insufficientAuthentication),
        ("org.bluez.Error.AuthenticationRejected", "Authentication Rejected", .insufficientAuthentication),
        ("org.bluez.Error.AuthenticationCanceled", "Authentication Canceled", .insufficientAuthentication),
        ("org.bluez.Error.AuthenticationTimeout", "Authentication Timeout", .insufficientAuthentication),
        ("org.bluez.Error.NotSupported", "Operation is not supported", .notSupported),
        ("org.bluez.Error.NotAvailable", "Operation currently not available", .notSupported),
        ("org.bluez.Error.InProgress", "In Progress", .inProgress),
        ("org.bluez.Error.InvalidArguments", "Invalid offset", .invalidArgument),
        ("org.bluez.Error.InvalidOffset", "Invalid offset", .invalidArgument),
        ("org.bluez.Error.InvalidValueLength", "Invalid Length", .invalidArgument),
        ("org.bluez.Error.DoesNotExist", "Does Not Exist", .peripheralNotFound),
        ("org.freedesktop.DBus.Error.ServiceUnknown", "The name org.bluez was not provided", .bluetoothUnavailable),
        ("org.freedesktop.DBus.Error.NameHasNoOwner", "no owner", .bluetoothUnavailable),
        ("org.freedesktop.DBus.Error.AccessDenied", "Rejected send message", .unauthorized),
        ("org.freedesktop.DBus.Error.UnknownObject", "Method \"Get\" doesn't exist", .notConnected),
        ("org.freedesktop.DBus.Error.UnknownMethod", "Unknown method", .notConnected),
        (
            "org.freedesktop.DBus.Error.NoReply", "Message recipient disconnected from message bus",
            .bluetoothUnavailable
        ),
        ("org.freedesktop.DBus.Error.NoReply", "Did not receive a reply", .timeout),
        ("org.freedesktop.DBus.Error.Timeout", "Timeout", .timeout),
        ("org.freedesktop.DBus.Error.TimedOut", "Timed out", .timeout),
        ("org.example.Error.Whatever", "Something else", .failed),
    ]

    @Test(arguments: names)
    func aNamedErrorBecomesItsKind(name: String, message: String, kind: BluetoothError.Kind) {
        let error = BluetoothError(.remote(name: name, message: message), during: "read 2A37")
        #expect(error.kind == kind)
        #expect(error.bluezName == name)
        #expect(error.bluezMessage == message)
        #expect(error.message == "read 2A37 failed: \(message)")
    }

    static let failures: [(String, BluetoothError.Kind)] = [
        ("Not connected", .notConnected),
        ("Disconnected early", .notConnected),
        ("Operation failed with ATT error: 0x0e", .attError(0x0E)),
        ("Operation failed with ATT error: 0x05", .attError(0x05)),
        ("le-connection-abort-by-local", .connectionFailed),
        ("br-connection-page-timeout", .connectionFailed),
        ("Software caused connection abort", .connectionFailed),
        ("Connection refused", .connectionFailed),
        ("Connection timed out", .timeout),
        ("Operation failed", .failed),
    ]

    @Test(arguments: failures)
    func bluetoothdsCatchAllFailureIsReadByItsMessage(message: String, kind: BluetoothError.Kind) {
        let error = BluetoothError(.remote(name: "org.bluez.Error.Failed", message: message), during: "connect")
        #expect(error.kind == kind)
    }

    @Test func anATTCodeThatIsNotHexadecimalIsAPlainFailure() {
        let error = BluetoothError(
            .remote(name: "org.bluez.Error.Failed", message: "Operation failed with ATT error: 0xzz"), during: "write")
        #expect(error.kind == .failed)
    }

    @Test func failuresOfTheBusItselfNameTheOperation() {
        #expect(
            BluetoothError(.timedOut, during: "read 2A19")
                == BluetoothError(.timeout, "read 2A19 timed out: bluetoothd did not answer"))
        #expect(
            BluetoothError(.disconnected, during: "connect")
                == BluetoothError(.bluetoothUnavailable, "connect failed: the connection to the bus is closed"))
        let noBus = BluetoothError(
            .connectionFailed(name: "org.freedesktop.DBus.Error.FileNotFound", message: "No such file"),
            during: "start discovery")
        #expect(noBus.kind == .bluetoothUnavailable)
        #expect(noBus.message == "start discovery failed: no bus (No such file)")
        #expect(noBus.bluezName == "org.freedesktop.DBus.Error.FileNotFound")
        #expect(BluetoothError(.invalidArgument("bad path"), during: "read").kind == .invalidArgument)
    }
}
