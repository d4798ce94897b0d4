import Ripple
import Synchronization

extension DBusConnection {
    /// Calls `handler` on the loop thread with each change of the byte-array (`ay`) property `property` of
    /// `interface`, on every object of `sender`, taken on the fast path of
    /// ``byteArrayPropertyChanges(from:interface:property:buffering:)`` with no subscription, buffer or
    /// lock in between: for the package's own consumers that run on the loop thread and keep up by
    /// construction (RippleBlueZ's central, which buffers per listener itself).
    ///
    /// The changes stop when the returned value is cancelled or released, or when the connection closes.
    /// A match rule the bus refuses delivers nothing.
    ///
    /// - Parameters:
    ///   - sender: the well-known name of the objects' owner (`org.bluez`).
    ///   - interface: the interface the property belongs to.
    ///   - property: the property.
    ///   - handler: called with each changed object's path and the property's new bytes.
    /// - Returns: what stops the changes.
    package func handleByteArrayPropertyChanges(
        from sender: String, interface: String, property: String,
        handler: @escaping @Sendable (DBusObjectPath, [UInt8]) -> Void
    ) -> AnyCancellable {
        let registration = ByteArrayPropertyHandlerRegistration(core: core)
        let id = ObjectIdentifier(registration)
        let rule = DBusMatchRule(
            sender: sender, interface: DBusByteArrayPropertyTap.propertiesInterface,
            member: DBusByteArrayPropertyTap.changedMember, arguments: [0: interface])
        let tap = DBusByteArrayPropertyTap(
            id: id, sender: sender, interface: interface, property: property,
            deliver: handler)
        core.perform { core in
            guard registration.install() else { return }
            let route = DBusByteArrayPropertyTap.route(
                id: id, rule: rule, property: property, deliver: tap.deliver, close: { _ in })
            core.signalRouter.add(route, core: core, tap: tap)
        }
        return AnyCancellable(registration)
    }
}

/// The registration ``DBusConnection/handleByteArrayPropertyChanges(from:interface:property:handler:)``
/// returns: cancelling it removes the route and the fast path, once.
final class ByteArrayPropertyHandlerRegistration: Cancellable, Sendable {
    private enum State {
        case pending, installed, cancelled
    }

    private let core: ConnectionCore
    private let state = Mutex(State.pending)

    init(core: ConnectionCore) {
        self.core = core
    }

    /// Marks the route installed; false when it was cancelled first (then nothing is installed).
    func install() -> Bool {
        state.withLock { state in
            guard case .pending = state else { return false }
            state = .installed
            return true
        }
    }

    func cancel() {
        let wasInstalled = state.withLock { state -> Bool in
            defer { state = .cancelled }
            if case .installed = state { return true }
            return false
        }
        guard wasInstalled else { return }
        // `self` stays alive until the route is gone, so that no newer registration can share its identifier.
        core.perform { [self] core in core.signalRouter.remove(ObjectIdentifier(self), core: core) }
    }
}
