/// A method of a ``DBusInterface``: its name, the signatures of its arguments and results, and the handler
/// that answers a call of it.
///
/// The handler runs on the connection's loop thread (see ``DBusConnection/export(_:)``), only for calls
/// whose arguments have exactly ``inputSignature`` (others are answered
/// `org.freedesktop.DBus.Error.InvalidArgs` without calling it). What it returns must have exactly
/// ``outputSignature``, else the caller gets `org.freedesktop.DBus.Error.Failed`. A thrown
/// ``DBusError/remote(name:message:)`` is replied as that D-Bus error; any other ``DBusError`` as
/// `org.freedesktop.DBus.Error.Failed` carrying its description.
public struct DBusMethod: Sendable {
    /// How a method answers.
    enum Handler: Sendable {
        /// Returns the results (or throws) before the handler returns.
        case immediate(@Sendable (DBusMethodCall) throws(DBusError) -> [DBusValue])
        /// Gets a ``DBusMethodInvocation`` to complete, now or later, from any thread.
        case deferred(@Sendable (DBusMethodInvocation) -> Void)
    }

    /// The method's member name (`StartDiscovery`).
    public let name: String
    /// The signature the call's arguments must have (`""` for none).
    public let inputSignature: DBusSignature
    /// The signature of the results the handler returns (`""` for none).
    public let outputSignature: DBusSignature
    /// Names of the arguments, for introspection only (by position; missing ones are left unnamed).
    public let inputNames: [String]
    /// Names of the results, for introspection only (by position; missing ones are left unnamed).
    public let outputNames: [String]
    let handler: Handler

    /// A method answered synchronously: `handler` gets the call and returns the results, or throws.
    ///
    /// - Parameters:
    ///   - name: the method's name.
    ///   - inputSignature: the signature the call's arguments must have.
    ///   - outputSignature: the signature of the results.
    ///   - inputNames: the arguments' names, for introspection.
    ///   - outputNames: the results' names, for introspection.
    ///   - handler: answers a call on the loop thread: the results, or the error the caller gets.
    public init(
        name: String,
        inputSignature: DBusSignature = .empty,
        outputSignature: DBusSignature = .empty,
        inputNames: [String] = [],
        outputNames: [String] = [],
        handler: @escaping @Sendable (DBusMethodCall) throws(DBusError) -> [DBusValue]
    ) {
        self.name = name
        self.inputSignature = inputSignature
        self.outputSignature = outputSignature
        self.inputNames = inputNames
        self.outputNames = outputNames
        self.handler = .immediate(handler)
    }

    /// A method answered asynchronously: `invocationHandler` gets a ``DBusMethodInvocation`` and completes
    /// it once — before returning or later, from any thread — with ``DBusMethodInvocation/reply(_:)`` or
    /// ``DBusMethodInvocation/fail(_:)``. An invocation released without being completed replies
    /// `org.freedesktop.DBus.Error.NoReply`.
    ///
    /// - Parameters:
    ///   - name: the method's name.
    ///   - inputSignature: the signature the call's arguments must have.
    ///   - outputSignature: the signature of the results.
    ///   - inputNames: the arguments' names, for introspection.
    ///   - outputNames: the results' names, for introspection.
    ///   - invocationHandler: gets each call's invocation, to complete once.
    public init(
        name: String,
        inputSignature: DBusSignature = .empty,
        outputSignature: DBusSignature = .empty,
        inputNames: [String] = [],
        outputNames: [String] = [],
        invocationHandler: @escaping @Sendable (DBusMethodInvocation) -> Void
    ) {
        self.name = name
        self.inputSignature = inputSignature
        self.outputSignature = outputSignature
        self.inputNames = inputNames
        self.outputNames = outputNames
        self.handler = .deferred(invocationHandler)
    }
}

/// One call of an exported method, as its handler sees it.
public struct DBusMethodCall: Sendable {
    /// The call as it came: sender, serial, path, interface (nil when the caller named none), member, body.
    public let message: DBusMessage
    /// The exported object called.
    public let object: DBusExportedObject
    /// The interface the method was found in (also when the caller named none).
    public let interface: String
    /// The method's name.
    public var member: String { message.member ?? "" }
    /// The arguments; they have the method's ``DBusMethod/inputSignature``.
    public var arguments: [DBusValue] { message.body }
    /// The unique name of the caller's connection (`:1.7`), as the bus stamped it.
    public var sender: String? { message.sender }
}
