import Ripple
import RippleLoop

/// A connection to a D-Bus message bus, driven by an `EventLoop` (RippleLoop): method calls, signals, properties and
/// exported objects as publishers.
///
/// ```swift
/// let bus = try DBusConnection(bus: .system)
/// bus.call(destination: "org.bluez", path: "/", interface: "org.freedesktop.DBus.ObjectManager",
///          member: "GetManagedObjects")
///     .sink(receiveCompletion: { print($0) }, receiveValue: { reply in print(reply.body) })
/// ```
///
/// ## Threading
/// The connection lives on its loop's thread: libdbus reads, writes and dispatches there, and every
/// publisher of the connection delivers its values and completion there. Everything public is safe from
/// any thread; what a thread asks for (a call, a subscription, a signal to send) reaches the bus in the
/// order that thread asked for it.
///
/// ## Lifetime
/// The connection stays open while you hold it or any subscription to one of its publishers; it closes
/// on ``close()``, when the last of those goes, or when the bus goes away — ``closed`` says which. Once
/// closed, waiting calls fail with ``DBusError/disconnected``, signal streams fail with it after the
/// signals they already received, new calls and subscriptions fail with it at once, and exported objects
/// are unexported (so a handler that holds the connection no longer keeps it: ``close()`` breaks the cycle).
public final class DBusConnection: Sendable {
    let core: ConnectionCore

    /// The loop that drives the connection and delivers its publishers' events.
    public var loop: EventLoop { core.loop }

    /// The unique bus name the bus gave this connection, such as `:1.42`.
    public var uniqueName: String { core.uniqueName }

    /// The bus's object path (`/org/freedesktop/DBus`).
    static let busPath: DBusObjectPath = .busObjectPath

    /// Connects to `bus` and registers with it (the `Hello` handshake, on the calling thread), then hands
    /// the connection to `loop`.
    ///
    /// - Parameters:
    ///   - bus: the bus: the system bus, the session bus, or one at an address.
    ///   - loop: the loop that drives the connection.
    /// - Throws: ``DBusError/connectionFailed(name:message:)`` with libdbus's reason when the bus cannot be reached,
    ///   refuses authentication or does not answer the handshake.
    public init(bus: DBusBus, loop: EventLoop = .shared) throws(DBusError) {
        core = try ConnectionCore(bus: bus, loop: loop)
    }

    deinit {
        core.perform { core in core.close(reason: .closedLocally) }
    }

    /// Closes the connection: see "Lifetime". Safe from any thread; idempotent.
    public func close() {
        core.perform { core in core.close(reason: .closedLocally) }
    }

    /// Emits why the connection closed, once, when it closes (at once if it already has), then finishes.
    public var closed: AnyPublisher<DBusCloseReason, Never> {
        core.closeSubject.compactMap { $0 }.first().eraseToAnyPublisher()
    }

    // MARK: Sending

    /// The bytes waiting in the connection's outgoing queue: sent by this process, not yet taken by the
    /// bus (its socket was full, because the bus reads more slowly than this process sends). libdbus keeps
    /// them without limit; a sender that must not grow it checks this first. Safe from any thread: the
    /// size as of the loop thread's last send or write. What other threads asked to send and the loop has
    /// not taken yet is not counted.
    public var outgoingByteCount: Int {
        core.outgoingBytes.load(ordering: .relaxed)
    }

    /// Calls `handler` once, on the loop thread, when the outgoing queue holds at most `bytes`
    /// (``outgoingByteCount``): after the write to the bus that brings it there, or on a later turn of the
    /// loop when it already does. Never called once the connection has closed. Safe from any thread.
    ///
    /// - Parameters:
    ///   - bytes: the most bytes the queue may hold.
    ///   - handler: what to call, once.
    public func whenOutgoingBytes(atMost bytes: Int, perform handler: @escaping @Sendable () -> Void) {
        core.perform { core in core.whenOutgoingBytes(atMost: bytes, handler) }
    }

    /// Sends `message` without waiting for anything: a signal, or a method call whose reply you do not want
    /// (set ``DBusMessage/noReplyExpected``). Safe from any thread; messages a thread sends go out in order.
    ///
    /// - Parameter message: the message.
    /// - Throws: ``DBusError/invalidArgument(_:)`` when the message cannot be encoded; a closed connection drops the
    ///   message silently (``closed`` tells when that happens).
    public func send(_ message: DBusMessage) throws(DBusError) {
        // Encoding errors surface here, on the caller's thread; the loop thread only sends.
        let encoded = try EncodedMessage(message)
        core.perform { core in _ = try? core.send(encoded) }
    }

    /// Emits the signal `interface.member` from the object at `path` with `arguments`, to every connection
    /// whose match rules select it. Both names are checked on every call: a signal emitted often is cheaper
    /// by its ``DBusSignalName`` (``emitSignal(path:_:arguments:)``).
    ///
    /// - Parameters:
    ///   - path: the emitting object's path.
    ///   - interface: the signal's interface.
    ///   - member: the signal's name.
    ///   - arguments: its arguments.
    /// - Throws: ``DBusError/invalidArgument(_:)`` for an invalid name or value.
    public func emitSignal(
        path: DBusObjectPath,
        interface: String,
        member: String,
        arguments: [DBusValue] = []
    ) throws(DBusError) {
        try emitSignal(path: path, DBusSignalName(interface: interface, member: member), arguments: arguments)
    }

    /// Emits the signal `name` from the object at `path` with `arguments`, to every connection whose match
    /// rules select it, without checking its names again.
    ///
    /// - Parameters:
    ///   - path: the emitting object's path.
    ///   - name: the signal's interface and member, validated when it was made.
    ///   - arguments: its arguments.
    /// - Throws: ``DBusError/invalidArgument(_:)`` for a value that cannot be written or libdbus's reserved local
    ///   path.
    public func emitSignal(path: DBusObjectPath, _ name: DBusSignalName, arguments: [DBusValue] = []) throws(DBusError)
    {
        let encoded = try EncodedMessage(signal: name, path: path, body: arguments)
        core.perform { core in _ = try? core.send(encoded) }
    }

    // MARK: Method calls

    /// The default time a method call waits for its reply: 25 seconds, as libdbus's default.
    public static let defaultCallTimeout: Duration = .seconds(25)

    /// A publisher that sends the method call `message` when first demanded and emits its reply, then
    /// finishes.
    ///
    /// Fails with ``DBusError/remote(name:message:)`` when the peer answers with an error (a peer that
    /// leaves without answering yields the bus's `org.freedesktop.DBus.Error.NoReply`),
    /// ``DBusError/timedOut`` when no reply comes within `timeout` (nil: wait as long as the connection
    /// lives), ``DBusError/disconnected`` when the connection closes, and ``DBusError/decoding(_:)`` when the
    /// reply cannot be read. Cancelling stops waiting: a reply that comes later is dropped.
    ///
    /// - Parameters:
    ///   - message: the method call.
    ///   - timeout: how long to wait for the reply; nil for as long as the connection lives.
    /// - Returns: the publisher of the reply.
    public func call(_ message: DBusMessage, timeout: Duration? = DBusConnection.defaultCallTimeout)
        -> DBusCallPublisher
    {
        DBusCallPublisher(connection: self, message: .success(message), timeout: timeout)
    }

    /// A publisher of the reply to the method `interface.member` of the object at `path` owned by
    /// `destination`, called with `arguments`: see ``call(_:timeout:)``. An invalid name fails the
    /// publisher with ``DBusError/invalidArgument(_:)``.
    ///
    /// - Parameters:
    ///   - destination: the bus name that owns the object.
    ///   - path: the object's path.
    ///   - interface: the method's interface.
    ///   - member: the method's name.
    ///   - arguments: its arguments.
    ///   - timeout: how long to wait for the reply; nil for as long as the connection lives.
    /// - Returns: the publisher of the reply.
    public func call(
        destination: String,
        path: DBusObjectPath,
        interface: String?,
        member: String,
        arguments: [DBusValue] = [],
        timeout: Duration? = DBusConnection.defaultCallTimeout
    ) -> DBusCallPublisher {
        let message = Result { () throws(DBusError) -> DBusMessage in
            try DBusMessage.methodCall(
                destination: destination, path: path, interface: interface, member: member, body: arguments)
        }
        return DBusCallPublisher(connection: self, message: message, timeout: timeout)
    }

    // MARK: Signals

    /// A publisher of the signals that match `rule`, delivered on the loop thread in the order the bus
    /// delivered them.
    ///
    /// The first subscription adds the rule to the bus (`AddMatch`); the last one to end removes it. A
    /// subscriber with no demand has up to `buffering.limit` signals kept for it; one more ends its stream
    /// with ``DBusError/bufferOverflow(limit:)`` and drops those kept (memory stays bounded however fast
    /// the peer sends). The stream fails with ``DBusError/disconnected`` when the connection closes, and
    /// with the bus's error if it refuses the rule. Signals sent before the rule is in place are not
    /// received: ``synchronize()`` waits for that.
    ///
    /// - Parameters:
    ///   - rule: which signals.
    ///   - buffering: how many signals are kept for a subscriber without demand.
    /// - Returns: the publisher of the signals.
    public func signals(matching rule: DBusMatchRule, buffering: DBusSignalBuffering = .default) -> DBusSignalPublisher
    {
        DBusSignalPublisher(connection: self, rule: rule, buffering: buffering)
    }

    /// A publisher of the signal `interface.member` from `sender` (any sender when nil), from the object
    /// at `path` (any when nil): ``signals(matching:buffering:)`` with that rule.
    ///
    /// - Parameters:
    ///   - sender: the sender; nil for any.
    ///   - path: the emitting object's path; nil for any.
    ///   - interface: the signal's interface.
    ///   - member: the signal's name.
    ///   - buffering: how many signals are kept for a subscriber without demand.
    /// - Returns: the publisher of the signals.
    public func signals(
        from sender: String? = nil,
        path: DBusObjectPath? = nil,
        interface: String,
        member: String,
        buffering: DBusSignalBuffering = .default
    ) -> DBusSignalPublisher {
        signals(
            matching: DBusMatchRule(sender: sender, interface: interface, member: member, path: path),
            buffering: buffering)
    }

    /// A publisher of the owner of the bus name `name`: the unique name owning it now (nil when none),
    /// then each new owner (nil when it goes) — a service that vanishes and comes back emits nil, then its
    /// new unique name. Never finishes on its own; fails with ``DBusError/disconnected`` when the
    /// connection closes.
    ///
    /// - Parameter name: the bus name.
    /// - Returns: the publisher of its owners.
    public func nameOwner(of name: String) -> DBusNameOwnerPublisher {
        DBusNameOwnerPublisher(connection: self, name: name)
    }

    /// Emits once (then finishes) when the bus has handled everything this connection asked of it so
    /// far — the match rules of the signal subscriptions made before included — so that what is sent
    /// after it is seen by those subscriptions. Fails with ``DBusError/disconnected`` if the connection
    /// closes first.
    ///
    /// - Returns: the publisher that emits once.
    public func synchronize() -> AnyPublisher<Void, DBusError> {
        let core = core
        return Deferred {
            Future<Void, DBusError> { promise in
                core.perform { core in
                    core.signalRouter.whenSettled {
                        guard core.isOpen else {
                            promise(.failure(.disconnected))
                            return
                        }
                        Self.ping(core) { result in promise(result) }
                    }
                }
            }
        }
        .eraseToAnyPublisher()
    }

    /// A round trip to the bus (`org.freedesktop.DBus.Peer.Ping`).
    private static func ping(_ core: ConnectionCore, completion: @escaping (Result<Void, DBusError>) -> Void) {
        do {
            let ping = try DBusMessage.methodCall(
                destination: DBusMatchRule.busName, path: busPath, interface: "org.freedesktop.DBus.Peer",
                member: "Ping", body: [])
            _ = core.startCall(ping, timeout: defaultCallTimeout) { result in
                completion(result.map { _ in () })
            }
        } catch {
            completion(.failure(error))
        }
    }
}

extension DBusObjectPath {
    /// `/org/freedesktop/DBus`, where the bus itself answers.
    static var busObjectPath: DBusObjectPath {
        // A constant, valid path: the fallback is never taken.
        (try? DBusObjectPath("/org/freedesktop/DBus")) ?? .root
    }
}
