import RippleDBus

extension BluetoothError {
    /// The error for a failed D-Bus exchange with bluetoothd during `operation` ("read 2A37", "connect"),
    /// keeping bluetoothd's error name and message.
    ///
    /// bluetoothd's names map to kinds (`NotReady` → ``Kind/poweredOff``, `NotPermitted` →
    /// ``Kind/notPermitted`` — but `NotPermitted` "Not paired", bluetoothd's answer to ATT's Insufficient
    /// Authentication or Encryption, → ``Kind/insufficientAuthentication`` —, …); its catch-all `org.bluez.Error.Failed` is read by message: "Not connected"
    /// is ``Kind/notConnected`` and "Operation failed with ATT error: 0x0e" is ``Kind/attError(_:)``. An
    /// object that is gone (`UnknownObject`) means the link dropped and the GATT objects went with it.
    ///
    /// - Parameters:
    ///   - error: the bus's or bluetoothd's error.
    ///   - operation: what was being done, for the message (`"reading 2A37 of C0:FF:EE:00:00:01"`).
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
        case BlueZErrorName.notReady: kind = .poweredOff
        case BlueZErrorName.notConnected: kind = .notConnected
        case BlueZErrorName.notPermitted:
            // bluetoothd 5.66 answers ATT's Insufficient Authentication, Insufficient Encryption and
            // Insufficient Encryption Key Size alike: NotPermitted "Not paired" (gatt-client.c).
            kind = message == "Not paired" ? .insufficientAuthentication : .notPermitted
        case BlueZErrorName.notAuthorized: kind = .insufficientAuthorization
        case BlueZErrorName.authenticationFailed, BlueZErrorName.authenticationRejected,
            BlueZErrorName.authenticationCanceled, BlueZErrorName.authenticationTimeout:
            kind = .insufficientAuthentication
        case BlueZErrorName.notSupported, BlueZErrorName.notAvailable: kind = .notSupported
        case BlueZErrorName.inProgress: kind = .inProgress
        case BlueZErrorName.invalidArguments, BlueZErrorName.invalidOffset, BlueZErrorName.invalidValueLength:
            kind = .invalidArgument
        case BlueZErrorName.doesNotExist: kind = .peripheralNotFound
        case BlueZErrorName.failed: kind = Self.kind(ofFailure: message)
        case BlueZErrorName.serviceUnknown, BlueZErrorName.nameHasNoOwner:
            kind = .bluetoothUnavailable
        case BlueZErrorName.accessDenied: kind = .unauthorized
        case BlueZErrorName.unknownObject, BlueZErrorName.unknownMethod:
            kind = .notConnected
        case BlueZErrorName.noReply where message.lowercased().contains("disconnected"):
            // bluetoothd left the bus (it stopped or crashed) with the call unanswered.
            kind = .bluetoothUnavailable
        case BlueZErrorName.noReply, BlueZErrorName.timeout,
            BlueZErrorName.timedOut:
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
        if lowered.hasPrefix(attPrefix),
            let code = try? Hex.bytes(String(lowered.dropFirst(attPrefix.count).prefix(2))),
            code.count == 1
        {
            return .attError(code[0])
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
