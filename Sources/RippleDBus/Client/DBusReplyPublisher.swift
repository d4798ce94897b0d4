import Ripple

/// A method call whose reply is read into a Swift value: what the property getters and setter of
/// ``DBusConnection`` return.
///
/// Each subscription sends the call anew (when the subscriber first demands a value), then emits the value
/// read from the reply and finishes. It fails as ``DBusConnection/call(_:timeout:)`` does (a remote error, a
/// timeout, the connection closing), and with ``DBusError/decoding(_:)`` when the reply cannot be read as
/// `Output`. Values and completion come on the connection's loop thread.
public struct DBusReplyPublisher<Output: Sendable>: Publisher, Sendable {
    /// Why no value came: a remote error, ``DBusError/timedOut``, ``DBusError/disconnected``, or a reply
    /// that could not be read (``DBusError/decoding(_:)``).
    public typealias Failure = DBusError

    /// The method call whose reply is read.
    public let call: DBusCallPublisher
    /// Reads the reply.
    let read: @Sendable (DBusMessage) throws(DBusError) -> Output

    /// A publisher of what `read` makes of the reply to `call`.
    init(call: DBusCallPublisher, read: @escaping @Sendable (DBusMessage) throws(DBusError) -> Output) {
        self.call = call
        self.read = read
    }

    /// Subscribes `subscriber`: the call is sent on its first demand.
    ///
    /// - Parameter subscriber: the subscriber.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == DBusError {
        let read = read
        call.flatMap(maxPublishers: .max(1)) { reply in
            Result { () throws(DBusError) -> Output in try read(reply) }.publisher
        }
        .subscribe(subscriber)
    }

    /// Reads a reply whose whole body must have the signature `expected` (`"v"`, `"a{sv}"`, `""`):
    /// otherwise ``DBusDecodingError/typeMismatch(expected:found:at:)`` with both whole signatures.
    static func checkSignature(of reply: DBusMessage, is expected: String) throws(DBusError) {
        let found = reply.signature.rawValue
        guard found == expected else {
            throw .decoding(.typeMismatch(expected: expected, found: found, at: ""))
        }
    }
}
