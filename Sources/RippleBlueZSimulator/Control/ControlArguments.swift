import RippleDBus

/// Reading the arguments of `org.ripple.BlueZSimulator1` calls into the simulator's values; what cannot be
/// read becomes the interface's InvalidArguments error, saying what was wrong.
enum ControlArguments {
    static func address(_ value: DBusValue?) throws(DBusError) -> BluetoothAddress {
        let text = value?.string ?? ""
        guard let address = try? BluetoothAddress(text) else {
            throw invalid("\"\(text)\" is not a device address (XX:XX:XX:XX:XX:XX)")
        }
        return address
    }

    static func uuid(_ value: DBusValue?) throws(DBusError) -> BluetoothUUID {
        let text = value?.string ?? ""
        guard let uuid = try? BluetoothUUID(text) else { throw invalid("\"\(text)\" is not a UUID") }
        return uuid
    }

    /// A reason by its short name (`remote`) or its full one (`org.bluez.Reason.Remote`); empty for remote.
    static func reason(_ text: String) throws(DBusError) -> DisconnectReason {
        if text.isEmpty { return .remote }
        if let reason = DisconnectReason(name: text) { return reason }
        if let reason = reasons.first(where: { $0.0 == text })?.1 { return reason }
        throw invalid(
            "\"\(text)\" is not a disconnect reason (" + reasons.map(\.0).joined(separator: ", ")
                + ", or org.bluez.Reason.*)")
    }

    static let reasons: [(String, DisconnectReason)] = [
        ("unknown", .unknown), ("timeout", .timeout), ("local", .local), ("remote", .remote),
        ("authentication", .authentication), ("suspend", .suspend),
    ]

    /// The operations by name; true for those that need an attribute UUID.
    static let operations: [(String, Bool)] = [
        ("connect", false), ("disconnect", false), ("pair", false), ("read", true), ("write", true),
        ("start-notify", true), ("stop-notify", true), ("acquire-notify", true), ("acquire-write", true),
        ("read-descriptor", true), ("write-descriptor", true),
    ]

    static func operation(_ name: String, attribute: String) throws(DBusError) -> SimulatedOperation {
        guard let (_, needsAttribute) = operations.first(where: { $0.0 == name }) else {
            throw invalid(
                "\"\(name)\" is not an operation (" + operations.map(\.0).joined(separator: ", ") + ")")
        }
        guard needsAttribute else {
            guard attribute.isEmpty else { throw invalid("the operation \(name) takes no attribute; pass \"\"") }
            switch name {
            case "connect": return .connect
            case "disconnect": return .disconnect
            default: return .pair
            }
        }
        let uuid = try self.uuid(.string(attribute))
        switch name {
        case "read": return .read(uuid)
        case "write": return .write(uuid)
        case "start-notify": return .startNotify(uuid)
        case "stop-notify": return .stopNotify(uuid)
        case "acquire-notify": return .acquireNotify(uuid)
        case "acquire-write": return .acquireWrite(uuid)
        case "read-descriptor": return .readDescriptor(uuid)
        default: return .writeDescriptor(uuid)
        }
    }

    static let faults = ["fail", "delay", "fail-after", "disconnect", "connect-without-connected-signal"]
    static let faultOptions = ["error", "message", "att", "delay", "reason", "times"]

    /// The fault named `name` with its `options`, and how many times it applies (nil: every time).
    static func fault(_ name: String, options value: DBusValue?) throws(DBusError) -> (OperationFault, Int?) {
        let options = value?.stringVariantDictionary ?? [:]
        if let unknown = options.keys.sorted().first(where: { !faultOptions.contains($0) }) {
            throw invalid(
                "\"\(unknown)\" is not a fault option (" + faultOptions.joined(separator: ", ") + ")")
        }
        var times: Int?
        if let given = options["times"] {
            guard let count = integer(given), count > 0 else { throw invalid("times must be a positive integer") }
            times = count
        }
        let fault: OperationFault
        switch name {
        case "fail":
            fault = .fail(try error(options))
        case "delay":
            fault = .delay(try delay(options))
        case "fail-after":
            fault = .failAfter(try delay(options), try error(options))
        case "disconnect":
            fault = .disconnect(try reason(options["reason"]?.unwrappingVariants.string ?? ""))
        case "connect-without-connected-signal":
            fault = .connectWithoutConnectedSignal
        default:
            throw invalid("\"\(name)\" is not a fault (" + faults.joined(separator: ", ") + ")")
        }
        return (fault, times)
    }

    /// The BlueZ error of a fault's options: `att` (an ATT error code, as bluetoothd reports it), or `error`
    /// (`org.bluez.Error.X` or `X`) with an optional `message` (bluetoothd's own for the known names).
    static func error(_ options: [String: DBusValue]) throws(DBusError) -> BlueZError {
        if let att = options["att"] {
            guard let code = integer(att).flatMap(UInt8.init(exactly:)) else {
                throw invalid("att must be an ATT error code (0…255)")
            }
            return BlueZError.attError(code)
        }
        let given = options["error"]?.unwrappingVariants.string ?? "Failed"
        let name = given.hasPrefix("org.") ? given : BlueZErrorName.prefix + given
        guard name.split(separator: ".").count >= 3, !name.hasSuffix(".") else {
            throw invalid("\"\(given)\" is not an error name")
        }
        let message = options["message"]?.unwrappingVariants.string ?? knownMessages[name] ?? "Operation failed"
        return BlueZError(name: name, message: message)
    }

    /// bluetoothd's messages for its error names.
    static let knownMessages: [String: String] = {
        var messages: [String: String] = [:]
        let known: [BlueZError] = [
            .invalidArguments, .inProgress, .alreadyExists, .notSupported, .notConnected, .alreadyConnected,
            .notAvailable, .doesNotExist, .notAuthorized, .notReady, .noSuchAdapter, .agentNotAvailable,
            .authenticationFailed, .notPermitted("Operation Not Permitted"), .failed("Operation failed"),
        ]
        for error in known { messages[error.name] = error.message }
        return messages
    }()

    static func delay(_ options: [String: DBusValue]) throws(DBusError) -> Duration {
        guard let value = options["delay"]?.unwrappingVariants else {
            throw invalid("the fault needs a delay (seconds)")
        }
        let seconds = value.double ?? integer(value).map(Double.init)
        guard let seconds, seconds >= 0, seconds < 86_400 else {
            throw invalid("delay must be a number of seconds (0 or more)")
        }
        return .microseconds(Int64((seconds * 1_000_000).rounded()))
    }

    static func integer(_ value: DBusValue) -> Int? {
        switch value.unwrappingVariants {
        case .byte(let number): Int(number)
        case .int16(let number): Int(number)
        case .uint16(let number): Int(number)
        case .int32(let number): Int(number)
        case .uint32(let number): Int(number)
        case .int64(let number): Int(number)
        case .uint64(let number): Int(exactly: number)
        default: nil
        }
    }

    static func invalid(_ message: String) -> DBusError {
        .remote(name: SimulatorControlService.errorPrefix + "InvalidArguments", message: message)
    }
}
