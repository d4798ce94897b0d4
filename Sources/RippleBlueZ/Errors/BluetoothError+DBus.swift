import RippleDBus

extension BluetoothError {
    /// The error for a failed D-Bus exchange with bluetoothd during `operation` ("read 2A37", "connect"),
    /// keeping bluetoothd's error name and message.
    ///
    /// bluetoothd's names map to kinds (`NotReady` → ``Kind/poweredOff``, `NotPermitted` →
    /// ``Kind/notPermitted``, …); its catch-all `org.bluez.Error.Failed` is read by message: "Not connected"
    /// is ``Kind/notConnected`` and "Operation failed with ATT error: 0x0e" is ``Kind/attError(_:)``. An
    /// object that is gone (`UnknownObject`) means the link dropped and the GATT objects went with it.
    public init(_ error: DBusError, during operation: String) {
        switch error {
        case .remote(let name, let message):
            self = BluetoothError(remote: name, message, during: operation)
        case .timedOut:
            self = BluetoothError(.timeout, "\(operation) timed out: bluetoothd did not answer")
        case .disconnected:
            self = BluetoothError(.bluetoothUnavailable, "\(operation) failed: the connection to the bus is closed")
        case .connectionFailed(let name, let message):
            self = BluetoothError(
                .bluetoothUnavailable, "\(operation) failed: no bus (\(message))", bluezName: name,
                bluezMessage: message)
        case .invalidArgument(let reason):
            self = BluetoothError(.invalidArgument, "\(operation) failed: \(reason)")
        default:
            self = BluetoothError(.failed, "\(operation) failed: \(error)")
        }
    }

    private init(remote name: String, _ message: String, during operation: String) {
        let kind: Kind
        switch name {
        case "org.bluez.Error.NotReady": kind = .poweredOff
        case "org.bluez.Error.NotConnected": kind = .notConnected
        case "org.bluez.Error.NotPermitted": kind = .notPermitted
        case "org.bluez.Error.NotAuthorized", "org.bluez.Error.AuthenticationFailed",
            "org.bluez.Error.AuthenticationRejected", "org.bluez.Error.AuthenticationCanceled":
            kind = .notAuthorized
        case "org.bluez.Error.NotSupported", "org.bluez.Error.NotAvailable": kind = .notSupported
        case "org.bluez.Error.InProgress": kind = .inProgress
        case "org.bluez.Error.InvalidArguments", "org.bluez.Error.InvalidOffset", "org.bluez.Error.InvalidValueLength":
            kind = .invalidArgument
        case "org.bluez.Error.DoesNotExist": kind = .peripheralNotFound
        case "org.bluez.Error.Failed": kind = Self.kind(ofFailure: message)
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
            kind = .bluetoothUnavailable
        case "org.freedesktop.DBus.Error.AccessDenied": kind = .notAuthorizedOnBus
        case "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.UnknownMethod":
            kind = .notConnected
        case "org.freedesktop.DBus.Error.NoReply" where message.lowercased().contains("disconnected"):
            // bluetoothd left the bus (it stopped or crashed) with the call unanswered.
            kind = .bluetoothUnavailable
        case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout",
            "org.freedesktop.DBus.Error.TimedOut":
            kind = .timeout
        default: kind = .failed
        }
        self.init(kind, "\(operation) failed: \(message)", bluezName: name, bluezMessage: message)
    }

    /// The kind of an `org.bluez.Error.Failed` by its message.
    private static func kind(ofFailure message: String) -> Kind {
        let lowered = message.lowercased()
        if lowered == "not connected" || lowered.hasPrefix("disconnected") { return .notConnected }
        let attPrefix = "operation failed with att error: 0x"
        if lowered.hasPrefix(attPrefix), let code = UInt8(lowered.dropFirst(attPrefix.count).prefix(2), radix: 16) {
            return .attError(code)
        }
        if lowered.hasPrefix("le-connection-") || lowered.hasPrefix("br-connection-")
            || lowered.contains("page timeout")
            || lowered.contains("software caused connection abort") || lowered.contains("connection refused")
        {
            return .connectionFailed
        }
        if lowered.contains("timed out") || lowered.contains("timeout") { return .timeout }
        return .failed
    }
}
