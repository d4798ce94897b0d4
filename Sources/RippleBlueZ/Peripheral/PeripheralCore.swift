import Ripple
import RippleDBus
import RippleLoop
import Synchronization

/// The working part of a ``PeripheralManager``: the exported GATT application and advertisements, the
/// owner of `org.bluez` (the only caller they answer), and the registrations with bluetoothd, each a
/// ``RegistrationStateMachine``.
///
/// Mutable state is one `LockedState<State>`; the machines' actions run after it is released. The machines'
/// events are handled on the connection's loop thread, each followed there by its actions, so that the actions
/// run in the order of the transitions. Handled on two threads, an earlier transition's `publish` could come
/// after a later one's and leave the stream on the older state for good: an advertisement asked for as
/// bluetoothd's owner became known stayed `waitingForBluetoothd` while advertising.
///
/// ``close()`` marks the core closed and stops the machines at once, on any thread (later events find them
/// closed), and does its bus work — the machines' unregistrations, the cancels of calls under way, the
/// unexports — in one turn of the loop thread, after the work already there. A registration a loop-thread turn
/// decided on before the close therefore goes out before its unregistration, never after it; and no
/// registration goes out once the core is closed (a close from inside a stream's callback, in the middle of a
/// machine's actions, included): `run` and the advertisement's start check before they send.
final class PeripheralCore: Sendable {
    /// Which registration an event or action belongs to.
    enum Target: Sendable, Hashable {
        case application
        case advertisement(Int)
    }

    /// One advertisement while ``PeripheralManager/advertise(_:)`` runs.
    struct AdvertisementSlot {
        let object: DBusExportedObject
        let advertisement: Advertisement
        var machine = RegistrationStateMachine()
        let subject: StateSubject<AdvertisingState, BluetoothError>
    }

    struct State {
        var owner: String?
        var application = RegistrationStateMachine()
        var applicationSubject: StateSubject<RegistrationState, BluetoothError>
        var applicationUsers = 0
        var advertisements: [Int: AdvertisementSlot] = [:]
        var nextAdvertisement = 0
        /// Calls under way and retry timers, by key.
        var pending: [String: AnyCancellable] = [:]
        var nextPending = 0
        var closed = false
    }

    static let gattManager = "org.bluez.GattManager1"
    static let advertisingManager = "org.bluez.LEAdvertisingManager1"
    static let advertisementInterface = "org.bluez.LEAdvertisement1"
    private static let instances = Atomic<Int>(0)

    let connection: DBusConnection
    let loop: EventLoop
    let adapterPath: DBusObjectPath
    let root: DBusObjectPath
    let ownsConnection: Bool
    let characteristics: [ServedCharacteristic]
    private let objects: [DBusExportedObject]
    /// The only caller the exported objects answer.
    let bluetoothd: BluetoothdOwner
    let state: LockedState<State>

    init(
        connection: DBusConnection, adapter: String, services: [LocalService], acquiresNotify: Bool,
        busQueueLimit: Int, ownsConnection: Bool
    ) throws(BluetoothError) {
        self.connection = connection
        self.loop = connection.loop
        self.ownsConnection = ownsConnection
        let instance = Self.instances.wrappingAdd(1, ordering: .relaxed).oldValue
        do {
            adapterPath = try DBusObjectPath.bluezRoot.appending(adapter)
            root = try DBusObjectPath("/org/ripple/peripheral\(instance)")
        } catch {
            throw BluetoothError(.invalidArgument, "the adapter name \"\(adapter)\" cannot be a path element")
        }
        state = LockedState(
            State(applicationSubject: StateSubject(.waitingForBluetoothd, context: .loop(connection.loop))))
        let link = CoreLink()
        let built = try Self.build(
            services, root: root, connection: connection, acquiresNotify: acquiresNotify,
            busQueueLimit: busQueueLimit, link: link)
        characteristics = built.characteristics
        objects = built.objects
        bluetoothd = BluetoothdOwner(connection: connection) { owner in link.core?.ownerChanged(owner) }
        link.set(self)
        do {
            try connection.exportObjectManager(at: root)
            for object in objects { try connection.export(object) }
        } catch {
            bluetoothd.cancel()
            throw BluetoothError(error, during: "exporting the GATT application")
        }
        // The owner may have come before the link was set.
        loop.runOnLoopThread { [weak self] in
            guard let self else { return }
            ownerChanged(bluetoothd.owner)
        }
    }

    // MARK: Registration

    /// A subscriber of the application's registration arrived: the first one starts it.
    func retainApplication() -> StateSubject<RegistrationState, BluetoothError> {
        let (subject, first) = state.withLock { state in
            // (Once closed, the subject has finished: a new subscriber gets that.)
            if !state.closed, state.applicationUsers == 0,
                state.application.phase == .failed || state.application.phase == .idle
            {
                state.applicationSubject = StateSubject(.waitingForBluetoothd, context: .loop(loop))
            }
            state.applicationUsers += 1
            return (state.applicationSubject, state.applicationUsers == 1)
        }
        if first { loop.runOnLoopThread { [self] in applicationUsersChanged() } }
        return subject
    }

    /// A subscriber of the application's registration left: the last one unregisters it.
    func releaseApplication() {
        let last = state.withLock { state -> Bool in
            guard state.applicationUsers > 0 else { return false }
            state.applicationUsers -= 1
            return state.applicationUsers == 0
        }
        if last { loop.runOnLoopThread { [self] in applicationUsersChanged() } }
    }

    /// The application's machine starts while it has users and stops when it has none (loop thread: a start
    /// and a stop asked from two threads take effect in the order the users came and went).
    private func applicationUsersChanged() {
        let actions = state.withLock { state -> [RegistrationStateMachine.Action] in
            guard !state.closed else { return [] }
            return state.application.handle(state.applicationUsers > 0 ? .start : .stop)
        }
        run(actions, for: .application)
    }

    /// Starts advertising `advertisement`; returns its key and state stream.
    func startAdvertising(_ advertisement: Advertisement) -> AnyPublisher<AdvertisingState, BluetoothError> {
        let (key, path) = state.withLock { state -> (Int, String) in
            defer { state.nextAdvertisement += 1 }
            return (state.nextAdvertisement, "\(root.rawValue)/advertisement\(state.nextAdvertisement)")
        }
        let subject = StateSubject<AdvertisingState, BluetoothError>(.waitingForBluetoothd, context: .loop(loop))
        let object: DBusExportedObject
        do {
            object = try DBusExportedObject(
                path: DBusObjectPath(path),
                interfaces: [
                    DBusInterface(
                        name: Self.advertisementInterface,
                        methods: [
                            DBusMethod(name: "Release") { [weak self] invocation in
                                guard let self, bluetoothd.admits(invocation) else { return }
                                _ = invocation.reply()
                                released(key)
                            }
                        ],
                        properties: advertisement.properties)
                ])
            try connection.export(object)
        } catch {
            return Fail(error: BluetoothError(error, during: "exporting the advertisement")).eraseToAnyPublisher()
        }
        let open = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.advertisements[key] = AdvertisementSlot(
                object: object, advertisement: advertisement, subject: subject)
            return true
        }
        guard open else {
            connection.unexport(object.path)
            return Empty().eraseToAnyPublisher()
        }
        // Its machine starts on the loop thread, where its other events come; a cancel that comes first (the
        // slot is gone then) leaves nothing to start.
        loop.runOnLoopThread { [self] in
            let actions = state.withLock { state -> [RegistrationStateMachine.Action] in
                guard var slot = state.advertisements[key] else { return [] }
                _ = slot.machine.handle(.ownerChanged(state.owner))
                let actions = slot.machine.handle(.start)
                state.advertisements[key] = slot
                return actions
            }
            run(actions, for: .advertisement(key))
        }
        return subject.handleEvents(receiveCancel: { [weak self] in self?.stopAdvertising(key) }).eraseToAnyPublisher()
    }

    private func stopAdvertising(_ key: Int) {
        loop.runOnLoopThread { [self] in
            guard let slot = state.withLock({ $0.advertisements.removeValue(forKey: key) }) else { return }
            var machine = slot.machine
            run(machine.handle(.stop), for: .advertisement(key), object: slot.object.path)
            connection.unexport(slot.object.path)
        }
    }

    /// bluetoothd released the advertisement (it stopped it by itself): the stream fails.
    private func released(_ key: Int) {
        guard let slot = state.withLock({ $0.advertisements.removeValue(forKey: key) }) else { return }
        connection.unexport(slot.object.path)
        slot.subject.send(completion: .failure(BluetoothError(.failed, "bluetoothd released the advertisement")))
    }

    /// `org.bluez` has a new owner (nil: none): every registration follows.
    func ownerChanged(_ owner: String?) {
        let changes = state.withLock {
            state -> ([RegistrationStateMachine.Action], [(Int, [RegistrationStateMachine.Action])])? in
            guard !state.closed, state.owner != owner else { return nil }
            state.owner = owner
            let application = state.application.handle(.ownerChanged(owner))
            var advertisements: [(Int, [RegistrationStateMachine.Action])] = []
            for key in state.advertisements.keys.sorted() {
                advertisements.append((key, state.advertisements[key]?.machine.handle(.ownerChanged(owner)) ?? []))
            }
            return (application, advertisements)
        }
        guard let (application, advertisements) = changes else { return }
        // A bluetoothd that goes forgets who listened (it sends no StopNotify, and its sockets are gone).
        for characteristic in characteristics {
            characteristic.releaseNotifySocket()
            characteristic.setListened(false)
        }
        run(application, for: .application)
        for (key, actions) in advertisements { run(actions, for: .advertisement(key)) }
    }

    /// Hands `event` to `target`'s machine and runs its actions (loop thread).
    private func handle(_ event: RegistrationStateMachine.Event, for target: Target) {
        let actions = state.withLock { state -> [RegistrationStateMachine.Action] in
            guard !state.closed else { return [] }
            switch target {
            case .application: return state.application.handle(event)
            case .advertisement(let key): return state.advertisements[key]?.machine.handle(event) ?? []
            }
        }
        run(actions, for: target)
    }

    /// Performs the machine's actions for `target` (`object`: the advertisement's path, when its slot is
    /// already gone).
    private func run(_ actions: [RegistrationStateMachine.Action], for target: Target, object: DBusObjectPath? = nil) {
        for action in actions {
            switch action {
            case .register(let owner, let tag):
                // A close made since the transition (from a stream's callback, say) has unregistered already.
                guard !isClosed else { continue }
                register(target, owner: owner, tag: tag)
            case .unregister(let owner):
                let path: DBusObjectPath?
                switch target {
                case .application: path = root
                case .advertisement(let key):
                    path = object ?? state.withLock { $0.advertisements[key]?.object.path }
                }
                guard let path else { continue }
                let member = target == .application ? "UnregisterApplication" : "UnregisterAdvertisement"
                let interface = target == .application ? Self.gattManager : Self.advertisingManager
                if var message = try? DBusMessage.methodCall(
                    destination: owner, path: adapterPath, interface: interface, member: member,
                    body: [.objectPath(path)])
                {
                    message.noReplyExpected = true
                    try? connection.send(message)
                }
            case .scheduleRetry:
                guard !isClosed else { continue }
                let key = pendingKey()
                let timer = loop.after(RegistrationStateMachine.retryDelay) { [weak self] in
                    self?.forget(key)
                    self?.handle(.retryTimerFired, for: target)
                }
                remember(timer, as: key)
            case .publish(let phase):
                publish(phase, for: target)
            case .fail(let error):
                switch target {
                case .application:
                    let subject = state.withLock { state in
                        state.applicationUsers = 0
                        return state.applicationSubject
                    }
                    subject.send(completion: .failure(error))
                case .advertisement(let key):
                    guard let slot = state.withLock({ $0.advertisements.removeValue(forKey: key) }) else { continue }
                    connection.unexport(slot.object.path)
                    slot.subject.send(completion: .failure(error))
                }
            }
        }
    }

    private func publish(_ phase: RegistrationStateMachine.Phase, for target: Target) {
        switch target {
        case .application:
            let value: RegistrationState
            switch phase {
            case .registered: value = .registered
            case .registering, .retrying: value = .registering
            case .idle, .waiting, .failed: value = .waitingForBluetoothd
            }
            state.withLock { $0.applicationSubject }.send(value)
        case .advertisement(let key):
            let value: AdvertisingState
            switch phase {
            case .registered: value = .advertising
            case .registering, .retrying: value = .starting
            case .idle, .waiting, .failed: value = .waitingForBluetoothd
            }
            state.withLock { $0.advertisements[key]?.subject }?.send(value)
        }
    }

    /// Sends `Register…` for `target` to `owner`; its reply becomes an event tagged `tag`.
    private func register(_ target: Target, owner: String, tag: Int) {
        let options = DBusValue.stringVariantDictionary([:])
        switch target {
        case .application:
            call(owner, Self.gattManager, "RegisterApplication", [.objectPath(root), options]) { [weak self] result in
                self?.handle(Self.event(for: result, tag: tag, during: "registering the GATT application"), for: target)
            }
        case .advertisement(let key):
            guard let slot = state.withLock({ $0.advertisements[key] }) else { return }
            // The fields the running bluetoothd supports come first: a start with one it lacks fails, naming it.
            call(owner, "org.freedesktop.DBus.Properties", "GetAll", [.string(Self.advertisingManager)]) {
                [weak self] result in
                guard let self else { return }
                switch result {
                case .failure:
                    handle(
                        Self.event(for: result.map { _ in [] }, tag: tag, during: "starting to advertise"), for: target)
                case .success(let values):
                    let properties = values.first?.stringVariantDictionary ?? [:]
                    func strings(_ name: String) -> [String] {
                        properties[name]?.unwrappingVariants.arrayElements?.compactMap(\.string) ?? []
                    }
                    // Closed while GetAll was answered: the close has unregistered the advertisement already.
                    guard !isClosed else { return }
                    if let field = slot.advertisement.unsupportedField(
                        includes: strings("SupportedIncludes"), features: strings("SupportedFeatures"))
                    {
                        let error = BluetoothError(
                            .notSupported,
                            "starting to advertise failed: bluetoothd does not support the field \(field)")
                        return handle(.failed(tag: tag, error, retryable: false), for: target)
                    }
                    let advertisement = slot.advertisement
                    call(
                        owner, Self.advertisingManager, "RegisterAdvertisement",
                        [.objectPath(slot.object.path), options]
                    ) { [weak self] result in
                        self?.handle(
                            Self.event(for: result, tag: tag, during: "starting to advertise")
                                .refusingData(of: advertisement),
                            for: target)
                    }
                }
            }
        }
    }

    /// The machine's event for a registration's reply: bluetoothd without the adapter or manager yet
    /// (it has just started) is worth another attempt.
    private static func event(for result: Result<[DBusValue], DBusError>, tag: Int, during operation: String)
        -> RegistrationStateMachine.Event
    {
        switch result {
        case .success: return .succeeded(tag: tag)
        case .failure(let error):
            var retryable = false
            if case .remote(let name, _) = error {
                retryable = [
                    "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.UnknownMethod",
                    "org.freedesktop.DBus.Error.UnknownInterface",
                ].contains(name)
            }
            return .failed(tag: tag, BluetoothError(error, during: operation), retryable: retryable)
        }
    }

    private func call(
        _ owner: String, _ interface: String, _ member: String, _ arguments: [DBusValue],
        completion: @escaping @Sendable (Result<[DBusValue], DBusError>) -> Void
    ) {
        let key = pendingKey()
        let subscription = connection.call(
            destination: owner, path: adapterPath, interface: interface, member: member, arguments: arguments
        ).sink(
            receiveCompletion: { [weak self] outcome in
                self?.forget(key)
                if case .failure(let error) = outcome { completion(.failure(error)) }
            },
            receiveValue: { reply in completion(.success(reply.body)) })
        remember(subscription, as: key)
    }

    private var isClosed: Bool {
        state.withLock { $0.closed }
    }

    private func pendingKey() -> String {
        state.withLock { state in
            defer { state.nextPending += 1 }
            return "\(state.nextPending)"
        }
    }

    private func remember(_ cancellable: AnyCancellable, as key: String) {
        let keep = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.pending[key] = cancellable
            return true
        }
        if !keep { cancellable.cancel() }
    }

    private func forget(_ key: String) {
        _ = state.withLock { $0.pending.removeValue(forKey: key) }
    }

    // MARK: Closing

    /// Unregisters everything, unexports the objects, ends every stream and (when it owns it) closes the
    /// connection. Idempotent.
    ///
    /// The machines stop and the streams end at once; the bus work is done on the loop thread (at once when
    /// called there), after the work already queued there (see the type's note).
    func close() {
        typealias Closing = (
            application: [RegistrationStateMachine.Action],
            advertisements: [(key: Int, slot: AdvertisementSlot, actions: [RegistrationStateMachine.Action])],
            subject: StateSubject<RegistrationState, BluetoothError>,
            cancellables: [AnyCancellable]
        )
        let closing = state.withLock { state -> Closing? in
            guard !state.closed else { return nil }
            state.closed = true
            var application = state.application.handle(.stop)
            application.removeAll { if case .unregister = $0 { false } else { true } }
            let advertisements = state.advertisements.keys.sorted().compactMap {
                key -> (key: Int, slot: AdvertisementSlot, actions: [RegistrationStateMachine.Action])? in
                guard var slot = state.advertisements[key] else { return nil }
                let actions = slot.machine.handle(.stop)
                return (key, slot, actions)
            }
            state.advertisements = [:]
            let cancellables = Array(state.pending.values)
            state.pending = [:]
            return (application, advertisements, state.applicationSubject, cancellables)
        }
        guard let closing else { return }
        bluetoothd.cancel()
        loop.runOnLoopThread { [self] in
            // Cancelled here, a call's reply can no longer be under way.
            for cancellable in closing.cancellables { cancellable.cancel() }
            run(closing.application, for: .application)
            for (key, slot, actions) in closing.advertisements {
                run(actions, for: .advertisement(key), object: slot.object.path)
                connection.unexport(slot.object.path)
            }
            for object in objects { connection.unexport(object.path) }
            connection.unexportObjectManager(at: root)
            if ownsConnection { connection.close() }
        }
        // The streams end after that (their completions are delivered on the loop thread, behind it): a
        // subscriber told that its stream ended finds the unregistrations sent.
        for advertisement in closing.advertisements { advertisement.slot.subject.send(completion: .finished) }
        closing.subject.send(completion: .finished)
        for characteristic in characteristics {
            characteristic.releaseNotifySocket()
            characteristic.finishListening()
            characteristic.finishWrites()
        }
    }
}

extension RegistrationStateMachine.Event {
    /// The event with bluetoothd's refusal of `advertisement`'s data as the user's error.
    ///
    /// bluetoothd answers `Failed` "Failed to parse advertisement." when a field has the wrong type or the
    /// advertising data it builds do not fit (or cannot be built). Ripple writes every field with its type,
    /// so the answer means the data: ``BluetoothError/Kind/invalidArgument``, with their length, rather than
    /// the catch-all ``BluetoothError/Kind/failed``.
    ///
    /// - Parameter advertisement: the advertisement being registered.
    /// - Returns: the event, its error changed when it is that refusal.
    func refusingData(of advertisement: Advertisement) -> Self {
        guard case .failed(let tag, let error, let retryable) = self, error.bluezName == BlueZErrorName.failed,
            error.bluezMessage == "Failed to parse advertisement."
        else { return self }
        let refused = BluetoothError(
            .invalidArgument,
            "starting to advertise failed: bluetoothd could not build advertising data from the advertisement "
                + "(\(advertisement.advertisingDataLength) bytes of fields; a legacy advertisement holds 31): "
                + "shorten the local name or leave fields out",
            bluezName: error.bluezName, bluezMessage: error.bluezMessage)
        return .failed(tag: tag, refused, retryable: retryable)
    }
}
