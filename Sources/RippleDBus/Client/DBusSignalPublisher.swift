import Ripple

/// The publisher ``DBusConnection/signals(matching:buffering:)`` returns: the signals matching a rule,
/// on the connection's loop thread, in the bus's order. Never finishes on its own.
public struct DBusSignalPublisher: Publisher, Sendable {
    /// A signal: its sender, path, interface, member and arguments.
    public typealias Output = DBusMessage
    /// Why the stream ended: ``DBusError/disconnected``, ``DBusError/bufferOverflow(limit:)``, or the bus's
    /// refusal of the rule.
    public typealias Failure = DBusError

    /// The connection receiving the signals.
    public let connection: DBusConnection
    /// Which signals.
    public let rule: DBusMatchRule
    /// How many signals are kept for a subscriber without demand.
    public let buffering: DBusSignalBuffering

    /// Subscribes `subscriber`: the rule is added to the bus if no other subscription has it.
    ///
    /// - Parameter subscriber: the subscriber.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == DBusMessage, S.Failure == DBusError {
        let subscription = LoopStreamSubscription(
            core: connection.core, limit: buffering.limit, description: "DBusSignals", downstream: subscriber)
        subscriber.receive(subscription: subscription)
        do {
            try rule.validate()
        } catch {
            connection.core.perform { _ in subscription.finish(.failure(error)) }
            return
        }
        let connection = connection
        let rule = rule
        let id = ObjectIdentifier(subscription)
        connection.core.perform { core in
            guard subscription.isActive else { return }
            // The route keeps the connection open while the subscription lives.
            let route = SignalRouter.Route(
                id: id, rule: rule,
                receive: { message in
                    withExtendedLifetime(connection) { subscription.offer(message) }
                },
                close: { error in subscription.finish(.failure(error)) })
            // A subscriber that cancelled meanwhile gets no route (nothing would remove it).
            guard subscription.setDetach(on: core, { core in core.signalRouter.remove(id, core: core) }) else { return }
            core.signalRouter.add(route, core: core)
        }
    }
}

/// The publisher ``DBusConnection/nameOwner(of:)`` returns: a bus name's owner now, then each change.
public struct DBusNameOwnerPublisher: Publisher, Sendable {
    /// The unique name owning the name, or nil while nobody does.
    public typealias Output = String?
    /// ``DBusError/disconnected`` when the connection closes, or ``DBusError/bufferOverflow(limit:)``.
    public typealias Failure = DBusError

    /// The connection asking.
    public let connection: DBusConnection
    /// The bus name watched.
    public let name: String

    /// Subscribes `subscriber`: it receives the current owner once the bus has answered, then changes.
    ///
    /// - Parameter subscriber: the subscriber.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == String?, S.Failure == DBusError {
        let subscription = LoopStreamSubscription(
            core: connection.core, limit: DBusSignalBuffering.default.limit, description: "DBusNameOwner",
            downstream: subscriber)
        subscriber.receive(subscription: subscription)
        let connection = connection
        let name = name
        let id = ObjectIdentifier(subscription)
        connection.core.perform { core in
            guard subscription.isActive else { return }
            let watcher = SignalRouter.OwnerWatcher(
                update: { owner in
                    withExtendedLifetime(connection) { subscription.offer(owner) }
                },
                close: { error in subscription.finish(.failure(error)) })
            guard
                subscription.setDetach(
                    on: core, { core in core.signalRouter.unwatchOwner(of: name, id: id, core: core) })
            else { return }
            core.signalRouter.watchOwner(of: name, id: id, core: core, watcher: watcher)
        }
    }
}
