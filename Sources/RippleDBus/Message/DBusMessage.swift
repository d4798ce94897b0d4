/// One D-Bus message: its header fields and its whole body, as Swift values.
///
/// The static constructors validate names as they build; the properties may then be changed freely, and
/// whatever is invalid is refused when the message is written (``wireBytes()`` or sending), with
/// ``DBusError/invalidArgument(_:)``. A message read from libdbus or from bytes is always valid.
public struct DBusMessage: Sendable, Hashable, CustomStringConvertible {
    /// The four kinds of D-Bus message.
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
        /// A call of a method on an object; a reply is expected unless ``DBusMessage/noReplyExpected``.
        case methodCall
        /// The successful reply to a method call, with the method's results as body.
        case methodReturn
        /// The failed reply to a method call: an error name and usually a message string as body.
        case error
        /// A signal an object emits.
        case signal

        /// `method call`, `method return`, `error` or `signal`.
        public var description: String {
            switch self {
            case .methodCall: "method call"
            case .methodReturn: "method return"
            case .error: "error"
            case .signal: "signal"
            }
        }
    }

    /// What kind of message this is.
    public var kind: Kind
    /// The sender's serial number of the message; 0 until a connection assigns one when sending.
    public var serial: UInt32
    /// For a method return or error, the serial of the call it answers (never 0).
    public var replySerial: UInt32?
    /// The unique name of the sending connection, as the bus fills it in.
    public var sender: String?
    /// The bus name the message is for (nil for a broadcast signal or on a peer-to-peer connection).
    public var destination: String?
    /// The object a method call is for, or a signal comes from.
    public var path: DBusObjectPath?
    /// The interface of the method or signal (optional for method calls).
    public var interface: String?
    /// The method or signal name.
    public var member: String?
    /// For an error, its name (such as `org.bluez.Error.Failed`).
    public var errorName: String?
    /// For a method call, that the caller wants no reply.
    public var noReplyExpected: Bool
    /// For a method call, that the bus may start the destination's service to deliver it.
    public var autoStart: Bool
    /// The arguments.
    public var body: [DBusValue]

    /// A message of any kind, taking the fields as given (validated when written).
    ///
    /// - Parameters:
    ///   - kind: what kind of message this is.
    ///   - serial: the sender's serial number of the message; 0 until a connection assigns one when sending.
    ///   - replySerial: for a method return or error, the serial of the call it answers (never 0).
    ///   - sender: the unique name of the sending connection, as the bus fills it in.
    ///   - destination: the bus name the message is for (nil for a broadcast signal or on a peer-to-peer connection).
    ///   - path: the object a method call is for, or a signal comes from.
    ///   - interface: the interface of the method or signal (optional for method calls).
    ///   - member: the method or signal name.
    ///   - errorName: for an error, its name (such as `org.bluez.Error.Failed`).
    ///   - noReplyExpected: for a method call, whether the caller wants no reply.
    ///   - autoStart: for a method call, whether the bus may start the destination's service to deliver it.
    ///   - body: the arguments.
    public init(
        kind: Kind, serial: UInt32 = 0, replySerial: UInt32? = nil, sender: String? = nil,
        destination: String? = nil, path: DBusObjectPath? = nil, interface: String? = nil,
        member: String? = nil, errorName: String? = nil, noReplyExpected: Bool = false,
        autoStart: Bool = true, body: [DBusValue] = []
    ) {
        self.kind = kind
        self.serial = serial
        self.replySerial = replySerial
        self.sender = sender
        self.destination = destination
        self.path = path
        self.interface = interface
        self.member = member
        self.errorName = errorName
        self.noReplyExpected = noReplyExpected
        self.autoStart = autoStart
        self.body = body
    }

    /// The body's signature, from its arguments' types.
    public var signature: DBusSignature {
        DBusSignature(types: body.map(\.type))
    }

    /// A method call of `member` on the object at `path`, sent to `destination`.
    ///
    /// - Parameters:
    ///   - destination: the bus name it is for; nil on a peer-to-peer connection.
    ///   - path: the object's path.
    ///   - interface: the method's interface; nil for any.
    ///   - member: the method's name.
    ///   - body: the arguments.
    /// - Returns: the message.
    /// - Throws: ``DBusError/invalidArgument(_:)`` for an invalid bus, interface or member name.
    public static func methodCall(
        destination: String?, path: DBusObjectPath, interface: String?, member: String, body: [DBusValue] = []
    ) throws(DBusError) -> DBusMessage {
        if let destination { try DBusNames.validateBusName(destination) }
        if let interface { try DBusNames.validateInterfaceName(interface) }
        try DBusNames.validateMemberName(member)
        return DBusMessage(
            kind: .methodCall, destination: destination, path: path, interface: interface, member: member, body: body)
    }

    /// A signal `member` of `interface`, emitted by the object at `path` (to no destination: a broadcast).
    ///
    /// - Parameters:
    ///   - path: the emitting object's path.
    ///   - interface: the signal's interface.
    ///   - member: the signal's name.
    ///   - body: the arguments.
    /// - Returns: the message.
    /// - Throws: ``DBusError/invalidArgument(_:)`` for an invalid interface or member name.
    public static func signal(
        path: DBusObjectPath, interface: String, member: String, body: [DBusValue] = []
    ) throws(DBusError) -> DBusMessage {
        try DBusNames.validateInterfaceName(interface)
        try DBusNames.validateMemberName(member)
        return DBusMessage(kind: .signal, path: path, interface: interface, member: member, body: body)
    }

    /// The signal `name`, emitted by the object at `path` (to no destination: a broadcast). Its names were
    /// validated when `name` was made.
    ///
    /// - Parameters:
    ///   - path: the emitting object's path.
    ///   - name: the signal's interface and member.
    ///   - body: the arguments.
    /// - Returns: the message.
    public static func signal(path: DBusObjectPath, _ name: DBusSignalName, body: [DBusValue] = []) -> DBusMessage {
        DBusMessage(kind: .signal, path: path, interface: name.interface, member: name.member, body: body)
    }

    /// The successful reply to `call`: to its sender, answering its serial, carrying `body`. (The call's
    /// serial should be set, as it is on a received call; 0 makes a reply that writing refuses.)
    ///
    /// - Parameters:
    ///   - call: the call answered.
    ///   - body: the results.
    /// - Returns: the message.
    public static func methodReturn(replyingTo call: DBusMessage, body: [DBusValue] = []) -> DBusMessage {
        DBusMessage(kind: .methodReturn, replySerial: call.serial, destination: call.sender, body: body)
    }

    /// The error reply `name` to `call`, to its sender, answering its serial, with `message` as its one
    /// string argument.
    ///
    /// - Parameters:
    ///   - call: the call answered.
    ///   - name: the error name.
    ///   - message: the error's message.
    /// - Returns: the message.
    /// - Throws: ``DBusError/invalidArgument(_:)`` for an invalid error name.
    public static func error(replyingTo call: DBusMessage, name: String, message: String) throws(DBusError)
        -> DBusMessage
    {
        try DBusNames.validateErrorName(name)
        return DBusMessage(
            kind: .error, replySerial: call.serial, destination: call.sender, errorName: name, body: [.string(message)])
    }

    /// For an error message, the ``DBusError/remote(name:message:)`` it stands for (the message is the first
    /// argument when it is a string, else empty); nil for other kinds.
    public var remoteError: DBusError? {
        guard kind == .error else { return nil }
        return .remote(name: errorName ?? "", message: body.first?.string ?? "")
    }

    /// One line: kind, serial, addressing and body, such as
    /// `method call #5 → org.bluez /org/bluez/hci0 org.bluez.Adapter1.StartDiscovery()`.
    public var description: String {
        var text = kind.description
        if serial != 0 { text += " #\(serial)" }
        if let replySerial { text += " reply to #\(replySerial)" }
        if let sender { text += " from \(sender)" }
        if let destination { text += " → \(destination)" }
        if let path { text += " \(path.rawValue)" }
        if let errorName { text += " \(errorName)" }
        switch (interface, member) {
        case (let interface?, let member?): text += " \(interface).\(member)"
        case (nil, let member?): text += " \(member)"
        case (let interface?, nil): text += " \(interface)"
        case (nil, nil): break
        }
        text += "(" + body.map(\.description).joined(separator: ", ") + ")"
        return text
    }

    /// Throws ``DBusError/invalidArgument(_:)`` when a header field is invalid or one the kind requires is
    /// missing (a method call needs a path and a member; a signal a path, an interface and a member; an
    /// error an error name and a reply serial; a method return a reply serial). `checkingNames: false`
    /// leaves out the bus, interface, member and error names (validated where they were made).
    func validateHeader(checkingNames: Bool = true) throws(DBusError) {
        if checkingNames {
            if let sender { try DBusNames.validateBusName(sender) }
            if let destination { try DBusNames.validateBusName(destination) }
            if let interface { try DBusNames.validateInterfaceName(interface) }
            if let member { try DBusNames.validateMemberName(member) }
            if let errorName { try DBusNames.validateErrorName(errorName) }
        }
        if replySerial == 0 { throw .invalidArgument("a D-Bus reply serial cannot be 0") }
        if path?.rawValue == Self.localPath || interface == Self.localInterface {
            throw .invalidArgument(
                "\(Self.localPath) and \(Self.localInterface) are reserved for libdbus's own local messages")
        }
        if let missing = missingHeaderField() {
            throw .invalidArgument("a D-Bus \(kind) needs \(missing)")
        }
    }

    /// The path and interface of the messages libdbus makes up locally (`Disconnected`); peers may not use them.
    static let localPath = "/org/freedesktop/DBus/Local"
    static let localInterface = "org.freedesktop.DBus.Local"

    /// The first header field the kind requires that is missing, in words, or nil.
    func missingHeaderField() -> String? {
        switch kind {
        case .methodCall:
            if path == nil { return "an object path" }
            if member == nil { return "a member name" }
        case .signal:
            if path == nil { return "an object path" }
            if interface == nil { return "an interface name" }
            if member == nil { return "a member name" }
        case .error:
            if errorName == nil { return "an error name" }
            if replySerial == nil { return "a reply serial" }
        case .methodReturn:
            if replySerial == nil { return "a reply serial" }
        }
        return nil
    }
}
