import Ripple

/// `org.freedesktop.DBus.ObjectManager`: the standard interface of a service's object tree.
private let objectManagerInterface = "org.freedesktop.DBus.ObjectManager"
/// `org.freedesktop.DBus.Properties`, whose `PropertiesChanged` signals change the tree's properties.
private let propertiesChangedInterface = "org.freedesktop.DBus.Properties"

extension DBusConnection {
    /// A publisher of the objects the `org.freedesktop.DBus.ObjectManager` at `path` of `destination`
    /// manages: a ``DBusObjectManagerEvent/snapshot(_:)`` of them, then every change, in the order the
    /// service made them, with nothing missed or repeated between the two. Apply the events to a
    /// ``DBusObjectManagerState`` (or use ``managedObjectsState(destination:path:buffering:)``) for the
    /// current tree. See ``DBusObjectManagerPublisher`` for how it follows a service that restarts.
    ///
    /// - Parameters:
    ///   - destination: the bus name of the service (`org.bluez`).
    ///   - path: the object manager's path (`/` by default).
    ///   - buffering: how many events are kept for a subscriber without demand.
    /// - Returns: the publisher of the events.
    public func managedObjects(
        destination: String,
        path: DBusObjectPath = .root,
        buffering: DBusSignalBuffering = .default
    ) -> DBusObjectManagerPublisher {
        DBusObjectManagerPublisher(connection: self, destination: destination, path: path, buffering: buffering)
    }

    /// A publisher of the managed objects of `destination`'s object manager at `path` after each event of
    /// ``managedObjects(destination:path:buffering:)``: the snapshot first, then the tree after each
    /// change. Fails as that publisher does. (Each state is a copy: for large trees with frequent
    /// changes, applying the events to one ``DBusObjectManagerState`` yourself copies less.)
    ///
    /// - Parameters:
    ///   - destination: the bus name of the service (`org.bluez`).
    ///   - path: the object manager's path (`/` by default).
    ///   - buffering: how many events are kept for a subscriber without demand.
    /// - Returns: the publisher of the states.
    public func managedObjectsState(
        destination: String,
        path: DBusObjectPath = .root,
        buffering: DBusSignalBuffering = .default
    ) -> Publishers.Scan<DBusObjectManagerPublisher, DBusObjectManagerState> {
        managedObjects(destination: destination, path: path, buffering: buffering)
            .scan(DBusObjectManagerState()) { state, event in state.applying(event) }
    }
}

/// The publisher ``DBusConnection/managedObjects(destination:path:buffering:)`` returns: the objects of a
/// service's object manager, then their changes, on the connection's loop thread.
///
/// ## Nothing missed, nothing twice
/// Each subscription first subscribes to the manager's `InterfacesAdded` and `InterfacesRemoved` signals
/// and to the `PropertiesChanged` signals below its path (from `destination` only), waits until the bus
/// has those rules, and only then calls `GetManagedObjects`. The bus forwards one sender's messages in
/// the order it sent them, so the signals the service emitted before it answered arrive before the
/// answer, and the answer already reflects them: they are dropped. Every signal after the answer is a
/// change the answer does not hold: it is emitted. (This relies on the service answering from the same
/// state it emits its signals from, in order, as every D-Bus service does: BlueZ runs one thread.)
///
/// Changes are emitted only when they concern the tree: `PropertiesChanged` for an object or interface
/// the manager does not have is dropped, and `InterfacesRemoved` names only the interfaces the object had.
///
/// ## A service that leaves or restarts
/// The stream follows `destination` as GDBus's object manager client does. When it has no owner, the
/// tree is empty (a first snapshot is then empty). When its owner leaves, the stream emits
/// ``DBusObjectManagerEvent/interfacesRemoved(_:_:)`` for every object (descendants before their
/// ancestors), so that a state built from the events becomes empty; when a new owner comes (a BlueZ
/// restart), it fetches the new tree and emits ``DBusObjectManagerEvent/interfacesAdded(_:_:)`` for every
/// object (in path order), then the new owner's changes. The stream does not start the service. Watch
/// ``DBusConnection/nameOwner(of:)`` to know when this happens.
///
/// ## Failures
/// The stream never finishes on its own. It fails with the service's error when `GetManagedObjects`
/// fails (`org.freedesktop.DBus.Error.UnknownMethod` or `…UnknownObject` when there is no object manager
/// at `path`), ``DBusError/timedOut`` when it does not answer, ``DBusError/invalidArgument(_:)`` for an
/// invalid `destination`, ``DBusError/disconnected`` when the connection closes,
/// ``DBusError/bufferOverflow(limit:)`` when the subscriber falls behind, and
/// ``DBusError/decoding(_:)`` when the answer or a signal of the tree has the wrong signature (expected
/// `a{oa{sa{sv}}}`, `oa{sa{sv}}`, `oas` or `sa{sv}as`): the stream could no longer mirror the tree
/// faithfully, and fails rather than go on wrong (a new subscription starts from a new snapshot). Only
/// `destination`'s owner can send the signals this stream hears.
public struct DBusObjectManagerPublisher: Publisher, Sendable {
    /// The snapshot, then each change.
    public typealias Output = DBusObjectManagerEvent
    /// Why the stream ended: see "Failures".
    public typealias Failure = DBusError

    /// The connection asking.
    public let connection: DBusConnection
    /// The bus name of the service (well-known, such as `org.bluez`, or unique).
    public let destination: String
    /// The path of the object manager (`/` for BlueZ).
    public let path: DBusObjectPath
    /// How many events are kept for a subscriber without demand.
    public let buffering: DBusSignalBuffering

    /// Subscribes `subscriber`: it receives the snapshot once the service has answered, then the changes.
    ///
    /// - Parameter subscriber: the subscriber.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == DBusObjectManagerEvent, S.Failure == DBusError {
        let subscription = LoopStreamSubscription(
            core: connection.core, limit: buffering.limit, description: "DBusObjectManager", downstream: subscriber)
        subscriber.receive(subscription: subscription)
        do {
            try DBusNames.validateBusName(destination)
        } catch {
            connection.core.perform { _ in subscription.finish(.failure(error)) }
            return
        }
        let feed = ObjectManagerFeed(
            connection: connection, destination: destination, managerPath: path, subscription: subscription)
        connection.core.perform { core in feed.start(core) }
    }
}

/// Feeds one subscription of a ``DBusObjectManagerPublisher`` (loop thread only, like the connection core:
/// its state is confined to that thread).
private final class ObjectManagerFeed<Downstream: Subscriber>: Sendable
where Downstream.Input == DBusObjectManagerEvent, Downstream.Failure == DBusError {
    private let connection: DBusConnection
    private let destination: String
    private let managerPath: DBusObjectPath
    private let subscription: LoopStreamSubscription<Downstream>

    /// How many of the two signal routes the bus has not confirmed yet.
    private nonisolated(unsafe) var routesPending = 2
    /// Whether the destination's owner is known, and who it is (nil: nobody).
    private nonisolated(unsafe) var ownerKnown = false
    private nonisolated(unsafe) var owner: String?
    /// Whether the routes are in place and the owner known: the stream has begun.
    private nonisolated(unsafe) var begun = false
    /// Counts owner changes: a `GetManagedObjects` answer from an earlier owner is stale.
    private nonisolated(unsafe) var ownerEpoch = 0
    /// Whether a `GetManagedObjects` answer is awaited (signals are dropped meanwhile), and its call.
    private nonisolated(unsafe) var fetching = false
    private nonisolated(unsafe) var fetchSerial: UInt32?
    /// Whether the first snapshot has been emitted.
    private nonisolated(unsafe) var snapshotSent = false
    /// The tree as emitted so far.
    private nonisolated(unsafe) var state = DBusObjectManagerState()
    /// Whether the stream ended (failed, cancelled, or its connection closed).
    private nonisolated(unsafe) var ended = false

    /// The errors of a `GetManagedObjects` whose answerer left: its owner change follows and decides.
    private static var ownerLeftErrors: Set<String> {
        [
            "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
            "org.freedesktop.DBus.Error.NoReply",
        ]
    }

    init(
        connection: DBusConnection, destination: String, managerPath: DBusObjectPath,
        subscription: LoopStreamSubscription<Downstream>
    ) {
        self.connection = connection
        self.destination = destination
        self.managerPath = managerPath
        self.subscription = subscription
    }

    /// The id of the route of the manager's own signals.
    private var managerRouteID: ObjectIdentifier { ObjectIdentifier(subscription) }
    /// The id of the route of `PropertiesChanged`, and of the owner watcher.
    private var propertiesRouteID: ObjectIdentifier { ObjectIdentifier(self) }

    // MARK: Starting and ending

    func start(_ core: ConnectionCore) {
        // Registers nothing if the subscriber cancelled meanwhile.
        guard subscription.setDetach(on: core, { [self] core in detach(core) }), !ended else { return }
        let managerRule = DBusMatchRule(sender: destination, interface: objectManagerInterface, path: managerPath)
        let propertiesRule = DBusMatchRule(
            sender: destination, interface: propertiesChangedInterface, member: "PropertiesChanged",
            pathNamespace: managerPath)
        core.signalRouter.add(
            SignalRouter.Route(
                id: managerRouteID, rule: managerRule,
                receive: { [self] message in receiveManagerSignal(message) },
                close: { [self] error in fail(error, core: core) }),
            core: core,
            activated: { [self] error in routeActivated(error, core: core) })
        core.signalRouter.add(
            SignalRouter.Route(
                id: propertiesRouteID, rule: propertiesRule,
                receive: { [self] message in receivePropertiesSignal(message, core: core) },
                close: { [self] error in fail(error, core: core) }),
            core: core,
            activated: { [self] error in routeActivated(error, core: core) })
        core.signalRouter.watchOwner(
            of: destination, id: propertiesRouteID, core: core,
            watcher: SignalRouter.OwnerWatcher(
                update: { [self] owner in ownerUpdated(owner, core: core) },
                close: { [self] error in fail(error, core: core) }))
    }

    /// Unregisters everything (idempotent): the subscription's detach, and on failure.
    private func detach(_ core: ConnectionCore) {
        ended = true
        core.signalRouter.remove(managerRouteID, core: core)
        core.signalRouter.remove(propertiesRouteID, core: core)
        core.signalRouter.unwatchOwner(of: destination, id: propertiesRouteID, core: core)
        if let fetchSerial {
            core.cancelCall(fetchSerial)
            self.fetchSerial = nil
        }
    }

    private func fail(_ error: DBusError, core: ConnectionCore) {
        guard !ended else { return }
        detach(core)
        subscription.finish(.failure(error))
    }

    private func emit(_ event: DBusObjectManagerEvent) {
        withExtendedLifetime(connection) { subscription.offer(event) }
    }

    // MARK: Beginning, and following the owner

    private func routeActivated(_ error: DBusError?, core: ConnectionCore) {
        // A refused rule has already failed the stream through its route's `close`.
        guard !ended, error == nil else { return }
        routesPending -= 1
        beginIfReady(core)
    }

    private func beginIfReady(_ core: ConnectionCore) {
        guard !begun, routesPending == 0, ownerKnown else { return }
        begun = true
        if let owner {
            fetch(from: owner, core: core)
        } else {
            snapshotSent = true
            emit(.snapshot([:]))
        }
    }

    private func ownerUpdated(_ newOwner: String?, core: ConnectionCore) {
        guard !ended else { return }
        guard ownerKnown else {
            ownerKnown = true
            owner = newOwner
            beginIfReady(core)
            return
        }
        guard newOwner != owner else { return }
        owner = newOwner
        ownerEpoch += 1
        fetching = false
        if let fetchSerial {
            core.cancelCall(fetchSerial)
            self.fetchSerial = nil
        }
        guard begun else { return }
        if snapshotSent {
            removeEverything()
        }
        if let newOwner {
            fetch(from: newOwner, core: core)
        } else if !snapshotSent {
            snapshotSent = true
            emit(.snapshot([:]))
        }
    }

    /// Emits the removal of every object, descendants first, and empties the tree.
    private func removeEverything() {
        let objects = state.objects
        state = DBusObjectManagerState()
        for path in objects.keys.sorted(by: >) {
            emit(.interfacesRemoved(path, (objects[path] ?? [:]).keys.sorted()))
        }
    }

    // MARK: The snapshot

    /// Calls `GetManagedObjects` on `owner` (its unique name: the answer comes from the owner whose signals
    /// are followed); signals are dropped until it answers.
    private func fetch(from owner: String, core: ConnectionCore) {
        fetching = true
        let epoch = ownerEpoch
        let call: DBusMessage
        do {
            call = try DBusMessage.methodCall(
                destination: owner, path: managerPath, interface: objectManagerInterface,
                member: "GetManagedObjects", body: [])
        } catch {
            fail(error, core: core)
            return
        }
        fetchSerial = core.startCall(call, timeout: DBusConnection.defaultCallTimeout) { [self] result in
            guard !ended, epoch == ownerEpoch else { return }
            fetchSerial = nil
            switch result {
            case .success(let reply):
                let objects: DBusManagedObjects
                do throws(DBusError) {
                    objects = try Self.readObjects(reply)
                } catch {
                    fail(error, core: core)
                    return
                }
                snapshotArrived(objects)
            case .failure(.remote(let name, _)) where Self.ownerLeftErrors.contains(name):
                // The owner left before answering: its NameOwnerChanged is on its way and takes over.
                break
            case .failure(let error):
                fail(error, core: core)
            }
        }
    }

    private func snapshotArrived(_ objects: DBusManagedObjects) {
        fetching = false
        state = DBusObjectManagerState(objects: objects)
        if snapshotSent {
            for path in objects.keys.sorted() {
                emit(.interfacesAdded(path, objects[path] ?? [:]))
            }
        } else {
            snapshotSent = true
            emit(.snapshot(objects))
        }
    }

    private static func readObjects(_ reply: DBusMessage) throws(DBusError) -> DBusManagedObjects {
        try check(reply, is: "a{oa{sa{sv}}}")
        do throws(DBusDecodingError) {
            return try reply.decodeArgument(DBusManagedObjects.self, at: 0)
        } catch {
            throw .decoding(error)
        }
    }

    private static func check(_ message: DBusMessage, is expected: String) throws(DBusError) {
        let found = message.signature.rawValue
        guard found == expected else {
            throw .decoding(.typeMismatch(expected: expected, found: found, at: ""))
        }
    }

    // MARK: Changes

    /// Whether a signal arriving now is a change after the snapshot (else the snapshot holds it).
    private var live: Bool {
        !ended && begun && !fetching
    }

    private func receiveManagerSignal(_ message: DBusMessage) {
        guard live, let path = message.path, path == managerPath else { return }
        let core = connection.core
        switch message.member {
        case "InterfacesAdded":
            do throws(DBusError) {
                try Self.check(message, is: "oa{sa{sv}}")
                let (object, interfaces) = try Self.decoding {
                    () throws(DBusDecodingError) -> (DBusObjectPath, [String: [String: DBusValue]]) in
                    try message.decodeArguments(as: DBusObjectPath.self, [String: [String: DBusValue]].self)
                }
                let event = DBusObjectManagerEvent.interfacesAdded(object, interfaces)
                state.apply(event)
                emit(event)
            } catch {
                fail(error, core: core)
            }
        case "InterfacesRemoved":
            do throws(DBusError) {
                try Self.check(message, is: "oas")
                let (object, interfaces) = try Self.decoding {
                    () throws(DBusDecodingError) -> (DBusObjectPath, [String]) in
                    try message.decodeArguments(as: DBusObjectPath.self, [String].self)
                }
                let present = state[object] ?? [:]
                var removed: [String] = []
                for interface in interfaces where present[interface] != nil && !removed.contains(interface) {
                    removed.append(interface)
                }
                guard !removed.isEmpty else { return }
                let event = DBusObjectManagerEvent.interfacesRemoved(object, removed)
                state.apply(event)
                emit(event)
            } catch {
                fail(error, core: core)
            }
        default:
            return
        }
    }

    private func receivePropertiesSignal(_ message: DBusMessage, core: ConnectionCore) {
        guard live, let path = message.path else { return }
        let change: DBusPropertiesChange
        do throws(DBusDecodingError) {
            change = try DBusPropertiesChange(decoding: message)
        } catch {
            fail(.decoding(error), core: core)
            return
        }
        guard state.properties(of: path, interface: change.interface) != nil else { return }
        let event = DBusObjectManagerEvent.propertiesChanged(path, change)
        state.apply(event)
        emit(event)
    }

    /// Runs a decoding step, its error as ``DBusError/decoding(_:)``.
    private static func decoding<T>(_ body: () throws(DBusDecodingError) -> T) throws(DBusError) -> T {
        do {
            return try body()
        } catch {
            throw .decoding(error)
        }
    }
}
