/// Which signals a subscription receives: a D-Bus match rule (`type='signal',sender=…,path=…`), which
/// the bus uses to route signals to this connection and the connection uses to route them to
/// subscribers.
///
/// Every field left `nil` (or empty) matches anything. All given fields must match.
///
/// ```swift
/// let rule = DBusMatchRule(
///     sender: "org.bluez", interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
///     pathNamespace: try DBusObjectPath("/org/bluez/hci0"))
/// ```
public struct DBusMatchRule: Sendable, Hashable, CustomStringConvertible {
    /// The sender: a unique name (`:1.7`) or a well-known name (`org.bluez`), which matches whichever
    /// connection owns it when the signal is sent.
    public var sender: String?
    /// The interface of the signal.
    public var interface: String?
    /// The signal's name.
    public var member: String?
    /// The exact object path the signal is emitted from.
    public var path: DBusObjectPath?
    /// An object path that the signal's path must equal or be below (`/org/bluez` matches
    /// `/org/bluez/hci0/dev_…`).
    public var pathNamespace: DBusObjectPath?
    /// String arguments that must be equal, by argument index (0 to 63): `arguments[0] = "org.bluez.Device1"`.
    public var arguments: [Int: String]

    /// A rule matching signals by any of these fields; see the properties for each.
    ///
    /// - Parameters:
    ///   - sender: the sender: a unique name (`:1.7`) or a well-known name (`org.bluez`), which matches whichever
    ///     connection owns it when the signal is sent.
    ///   - interface: the interface of the signal.
    ///   - member: the signal's name.
    ///   - path: the exact object path the signal is emitted from.
    ///   - pathNamespace: an object path that the signal's path must equal or be below (`/org/bluez` matches
    ///     `/org/bluez/hci0/dev_…`).
    ///   - arguments: string arguments that must be equal, by argument index (0 to 63): `arguments[0] =
    ///     "org.bluez.Device1"`.
    public init(
        sender: String? = nil,
        interface: String? = nil,
        member: String? = nil,
        path: DBusObjectPath? = nil,
        pathNamespace: DBusObjectPath? = nil,
        arguments: [Int: String] = [:]
    ) {
        self.sender = sender
        self.interface = interface
        self.member = member
        self.path = path
        self.pathNamespace = pathNamespace
        self.arguments = arguments
    }

    /// The rule in the bus's syntax, as sent with `AddMatch`: `type='signal',sender='org.bluez',…`, each
    /// value quoted (a `'` inside a value written as `'\''`, the syntax's escape).
    public var description: String {
        var parts = ["type='signal'"]
        func add(_ key: String, _ value: String?) {
            guard let value else { return }
            var quoted = ""
            for character in value {
                quoted += character == "'" ? "'\\''" : String(character)
            }
            parts.append("\(key)='\(quoted)'")
        }
        add("sender", sender)
        add("interface", interface)
        add("member", member)
        add("path", path?.rawValue)
        // The bus treats path_namespace='/' as "no restriction" but rejects nothing; keep it literal.
        add("path_namespace", pathNamespace?.rawValue)
        for index in arguments.keys.sorted() {
            add("arg\(index)", arguments[index])
        }
        return parts.joined(separator: ",")
    }

    /// Checks what the bus would refuse, before the rule is sent: argument indexes outside 0…63, and
    /// `path` together with `pathNamespace`.
    func validate() throws(DBusError) {
        if let bad = arguments.keys.first(where: { !(0...63).contains($0) }) {
            throw .invalidArgument("match rule argument index \(bad) is outside 0…63")
        }
        if path != nil && pathNamespace != nil {
            throw .invalidArgument("a match rule cannot have both path and pathNamespace")
        }
    }

    /// Whether `message` matches, given the unique name that currently owns ``sender`` when it is a
    /// well-known name (`senderOwner`; nil when the name has no owner or is not tracked).
    func matches(_ message: DBusMessage, senderOwner: String?) -> Bool {
        guard message.kind == .signal else { return false }
        if let sender {
            guard let actual = message.sender else { return false }
            if actual != sender && actual != senderOwner { return false }
        }
        if let interface, message.interface != interface { return false }
        if let member, message.member != member { return false }
        if let path, message.path != path { return false }
        if let pathNamespace {
            guard let actual = message.path?.rawValue else { return false }
            let namespace = pathNamespace.rawValue
            guard actual == namespace || namespace == "/" || actual.hasPrefix(namespace + "/") else { return false }
        }
        for (index, expected) in arguments {
            guard index < message.body.count, case .string(let actual) = message.body[index], actual == expected
            else { return false }
        }
        return true
    }

    /// Whether the sender is a well-known name whose owner the connection must track to match locally.
    var wellKnownSender: String? {
        guard let sender, !sender.hasPrefix(":"), sender != DBusMatchRule.busName else { return nil }
        return sender
    }

    /// The bus's own name: the sender of the signals the bus itself emits.
    static let busName = "org.freedesktop.DBus"
}
