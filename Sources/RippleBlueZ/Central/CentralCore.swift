import Ripple
import RippleDBus
import RippleLoop
import Synchronization

/// The central's mirror of bluetoothd — its object tree (from one `ObjectManager` subscription) and
/// the state derived from it — and the state machines that drive connections and GATT operations.
///
/// Two rules, one per kind of state:
/// - **The machines and their bookkeeping** (``Confined``: connections, GATT queues, discovery,
///   notification sessions) are confined to the loop thread. Every event from the bus and every timer
///   arrives there; a request from another thread goes there through ``perform(_:)``, which also runs one
///   piece of work at a time: work started by a callback during another (a subscriber cancelling from
///   inside a value) waits for it to end.
/// - **The mirror** (the tree, and each peripheral's connection phase as its machine decided it) is one
///   `Mutex` (a `LockedState`, whose ordering ThreadSanitizer sees), written on the loop thread and read
///   from any thread, so that handles and lookups (``Peripheral/isConnected``, ``Peripheral/services``)
///   answer at once.
final class CentralCore: Sendable {
    let connection: DBusConnection
    let loop: EventLoop
    let adapterName: String?
    let ownsConnection: Bool
    /// How long a GATT operation waits for its attribute to be exported.
    let attributeTimeout: Duration

    /// bluetoothd's tree as the central mirrors it, and each peripheral's connection phase as its machine
    /// last published it: written on the loop thread, read from any.
    struct Mirror: Sendable {
        var tree = DBusObjectManagerState()
        var phases: [DBusObjectPath: ConnectionStateMachine.Phase] = [:]
    }

    let mirror = LockedState(Mirror())

    /// What the loop thread alone touches.
    struct Confined {
        /// Whether `org.bluez` has an owner (nil before the bus answered).
        var hasOwner: Bool?
        /// Why the tree subscription failed (access denied, …), until bluetoothd changes owner.
        var treeFailure: DBusError?
        var treeReceived = false
        var treeSubscription: AnyCancellable?
        var subscriptions: [AnyCancellable] = []
        /// The work under way and the hot path of notifications, which hold the value route.
        let work: CentralWork
        /// Each peripheral's connection: its machine, and what its actions left running.
        var connections: [DBusObjectPath: ConnectionRecord] = [:]
        /// The `connect` subscriptions waiting for an attempt.
        var connectSubscribers: [Int: OperationSubscription<Peripheral>] = [:]
        /// The connection tasks of each peripheral, by upper-case address, in the order added.
        var connectionTasks: [BluetoothAddress: [(id: Int, task: ConnectionTask)]] = [:]
        /// The peripherals lent to another tool (``PeripheralHandOver``).
        var handedOver: Set<DBusObjectPath> = []
        /// Each device's GATT operation queue, and the operations in it.
        var queues: [DBusObjectPath: GATTQueueStateMachine] = [:]
        var operations: [Int: GATTOperationRecord] = [:]
        /// The discovery session and its clients' streams, and the start or stop under way.
        var discovery = DiscoveryStateMachine()
        var discoveryClients: [Int: DiscoverySink] = [:]
        /// The lists of ``Central/availablePeripherals(filter:expiry:)`` subscribers.
        var availability: [Int: AvailabilityWatcher] = [:]
        var discoveryCall: AnyCancellable?
        /// Each characteristic's notification session, and the listeners waiting for their characteristic.
        /// Any change of a session may change where its values go: it drops the work's routes (see
        /// ``valueListeners(for:)`` and ``socketListeners(for:)``).
        var sessions: [DBusObjectPath: NotificationSessionRecord] = [:] {
            didSet {
                work.route = nil
                work.socketRoute = nil
            }
        }
        var pendingListeners: [Int: PendingListener] = [:]
        /// Why links ended, as bluetoothd said (`Device1.Disconnected`, 5.83 and later).
        var disconnectReasons: [DBusObjectPath: DisconnectReason] = [:]
        /// Events a machine refused (the last ones), and how many.
        var violations: [StateMachineViolation] = []
        var violationCount = 0

        init(work: CentralWork) {
            self.work = work
        }
    }

    let confined: LoopConfined<Confined>
    /// The work under way, one piece at a time, and the hot path of notifications over the bus.
    let work: CentralWork
    private let lastID = Atomic<Int>(0)

    /// The central's public streams: state streams of what is, an event stream of what happened; all
    /// delivered on the loop thread.
    let state: StateSubject<CentralState, Never>
    let isScanning: StateSubject<Bool, Never>
    let connectedPeripherals: StateSubject<[Peripheral], Never>
    let connectingPeripherals: StateSubject<[Peripheral], Never>
    let connectionEvents: EventSubject<ConnectionEvent, Never>
    /// Each change of the tree, after it is applied (internal: hand-overs and tests watch it).
    let treeEvents = PassthroughSubject<DBusObjectManagerEvent, Never>()

    /// Back to the public object, for the peripherals the core creates (weak: the central owns the core).
    nonisolated(unsafe) weak var central: Central?

    init(connection: DBusConnection, adapterName: String?, ownsConnection: Bool, attributeTimeout: Duration) {
        self.connection = connection
        self.loop = connection.loop
        self.adapterName = adapterName
        self.ownsConnection = ownsConnection
        self.attributeTimeout = attributeTimeout
        work = CentralWork(loop: connection.loop)
        confined = LoopConfined(Confined(work: work), to: connection.loop)
        let context = DeliveryContext.loop(connection.loop)
        state = StateSubject(.unknown, context: context)
        isScanning = StateSubject(false, context: context)
        connectedPeripherals = StateSubject([], context: context)
        connectingPeripherals = StateSubject([], context: context)
        connectionEvents = EventSubject(context: context, name: "connection events")
        work.central = self
    }

    /// Runs `work` on the loop thread, after the work under way: at once when called on the loop
    /// thread outside other work, later otherwise.
    ///
    /// - Parameter work: reads and changes the confined state, and performs what follows.
    func perform(_ work: @escaping @Sendable () -> Void) {
        loop.runOnLoopThread { [self] in self.work.run(work) }
    }

    /// Starts following bluetoothd: its owner and its tree.
    func start() {
        perform { [self] in
            let owner = connection.nameOwner(of: BlueZ.service).sink(
                receiveCompletion: { [weak self] _ in self?.perform { [weak self] in self?.busClosed() } },
                receiveValue: { [weak self] owner in self?.perform { [weak self] in self?.ownerChanged(owner) } })
            let reasons = connection.signals(from: BlueZ.service, interface: BlueZ.device, member: "Disconnected")
                .sink(
                    receiveCompletion: { _ in },
                    receiveValue: { [weak self] message in
                        self?.perform { [weak self] in self?.disconnectedSignal(message) }
                    })
            // Characteristic values take the connection's fast path: a notification over StartNotify is a
            // `Value` change that skips the object tree (the tree's `Value` stays as it was), handed over on
            // the loop thread with no stream in between (each listener has its own buffer), to the work's
            // value route (see CentralWork: it holds the central weakly).
            let values = connection.handleByteArrayPropertyChanges(
                from: BlueZ.service, interface: BlueZ.characteristic, property: "Value"
            ) { [work] path, bytes in work.valueChanged(path, bytes) }
            confined.value.subscriptions = [owner, reasons, values]
            subscribeToTree()
        }
    }

    /// Stops following bluetoothd: streams under way end, whether or not the connection is the
    /// central's own; its own connection closes.
    func stop() {
        perform { [self] in
            let cancellables =
                confined.value.subscriptions + (confined.value.treeSubscription.map { [$0] } ?? [])
            confined.value.subscriptions = []
            confined.value.treeSubscription = nil
            for cancellable in cancellables { cancellable.cancel() }
            failEverything(with: BluetoothError(.bluetoothUnavailable, "the central was closed"), final: true)
            state.send(completion: .finished)
            isScanning.send(completion: .finished)
            connectedPeripherals.send(completion: .finished)
            connectingPeripherals.send(completion: .finished)
            connectionEvents.send(completion: .finished)
            treeEvents.send(completion: .finished)
            if ownsConnection { connection.close() }
        }
    }

    private func subscribeToTree() {
        let subscription = connection.managedObjects(destination: BlueZ.service).sink(
            receiveCompletion: { [weak self] completion in
                if case .failure(let error) = completion { self?.perform { [weak self] in self?.treeFailed(error) } }
            },
            receiveValue: { [weak self] event in self?.perform { [weak self] in self?.apply(event) } })
        confined.value.treeSubscription = subscription
    }

    // MARK: Events from the bus

    private func ownerChanged(_ owner: String?) {
        confined.value.hasOwner = owner != nil
        // A failed subscription is tried again when bluetoothd comes (back).
        if owner != nil, confined.value.treeFailure != nil {
            confined.value.treeFailure = nil
            subscribeToTree()
        }
        if owner == nil { failEverything(with: .bluetoothUnavailable) }
        updateState()
    }

    private func treeFailed(_ error: DBusError) {
        confined.value.treeFailure = error
        confined.value.treeSubscription = nil
        updateState()
    }

    private func busClosed() {
        confined.value.hasOwner = false
        failEverything(with: BluetoothError(.bluetoothUnavailable, "the connection to the bus closed"), final: true)
        updateState()
    }

    /// Applies a change of bluetoothd's tree and lets every part of the central react to it.
    ///
    /// - Parameter event: the change, from the tree subscription or a refreshed tree.
    func apply(_ event: DBusObjectManagerEvent) {
        mirror.withLock { mirror in mirror.tree.apply(event) }
        confined.value.treeReceived = true
        if Self.mayChangeState(event) { updateState() }
        connectionTreeEvent(event)
        notificationTreeEvent(event)
        discoveryTreeEvent(event)
        availabilityTreeEvent(event)
        operationTreeEvent(event)
        treeEvents.send(event)
    }

    // MARK: State

    /// Whether `event` can change the state: the snapshot, or an adapter appearing, going or changing.
    private static func mayChangeState(_ event: DBusObjectManagerEvent) -> Bool {
        switch event {
        case .snapshot: true
        case .interfacesAdded(_, let interfaces): interfaces[BlueZ.adapter] != nil
        case .interfacesRemoved(_, let interfaces): interfaces.contains(BlueZ.adapter)
        case .propertiesChanged(_, let change): change.interface == BlueZ.adapter
        }
    }

    /// Every adapter, by number (`hci0` first).
    var adapters: [BluetoothAdapter] {
        mirror.withLock { mirror in
            mirror.tree.objects(implementing: BlueZ.adapter).compactMap { path in
                BluetoothAdapter(
                    path: path, properties: mirror.tree.properties(of: path, interface: BlueZ.adapter) ?? [:])
            }
        }.sorted { ($0.index, $0.name) < ($1.index, $1.name) }
    }

    /// The adapter the central uses: the one named at creation, else the lowest-numbered powered one,
    /// else the lowest-numbered one.
    var adapter: BluetoothAdapter? {
        let all = adapters
        if let adapterName { return all.first { $0.name == adapterName } }
        return all.first(where: \.isPowered) ?? all.first
    }

    private func computeState() -> CentralState {
        let owner = confined.value.hasOwner
        let failure = confined.value.treeFailure
        if let failure, failure.remoteName == BlueZErrorName.accessDenied { return .unauthorized }
        guard let owner else { return .unknown }
        guard owner else { return .bluetoothUnavailable }
        if failure != nil { return .bluetoothUnavailable }
        guard confined.value.treeReceived else { return .unknown }
        guard let adapter else { return .noAdapter }
        return adapter.isPowered ? .poweredOn : .poweredOff
    }

    /// Sends the state when it changed. What the change ends (discovery, links, listeners) has ended
    /// when the new state is delivered; what it allows again starts once it is delivered.
    private func updateState() {
        let new = computeState()
        // Unknown only until the first answer: a returning bluetoothd is unavailable until its tree comes.
        guard state.value != new, new != .unknown || state.value == .unknown else { return }
        if new != .poweredOn, new != .unknown, let error = new.error { failEverything(with: error) }
        state.send(new)
        if new == .poweredOn {
            discoveryMayResume()
            reconnectionsMayResume()
        }
    }

    /// The error an operation fails with now, or nil when it can run.
    func operationError() -> BluetoothError? {
        state.value.error
    }

    /// A new identifier for a discovery client, a connection subscriber, an operation or a listener.
    func nextID() -> Int {
        lastID.add(1, ordering: .relaxed).newValue
    }

    /// Ends what is under way when bluetoothd or the adapter goes. Peripherals under a reconnection
    /// policy keep their listeners and wait for bluetoothd and the adapter to return, unless the end is
    /// `final` (the central or its bus closed).
    private func failEverything(with error: BluetoothError, final: Bool = false) {
        failDiscovery(with: error, interruption: !final)
        connectionsLostBluetooth(error, final: final)
        failNotifications(with: error, sparing: heldForReconnection())
    }

    // MARK: Violations

    /// Records an event a machine refused (the last 32 are kept).
    ///
    /// - Parameter violation: what the machine threw.
    func record(_ violation: StateMachineViolation) {
        confined.value.violationCount += 1
        confined.value.violations.append(violation)
        if confined.value.violations.count > 32 { confined.value.violations.removeFirst() }
    }

    // MARK: Reading the tree

    /// The `Device1` properties of the device at `path`, if it is in the tree.
    func deviceProperties(_ path: DBusObjectPath) -> [String: DBusValue]? {
        mirror.withLock { mirror in mirror.tree.properties(of: path, interface: BlueZ.device) }
    }

    /// The device of `address` on the central's adapter.
    func devicePath(address: BluetoothAddress) -> DBusObjectPath? {
        guard let adapter else { return nil }
        return mirror.withLock { mirror in
            mirror.tree.objects(implementing: BlueZ.device).first { path in
                let properties = mirror.tree.properties(of: path, interface: BlueZ.device)
                return properties?["Address"]?.string.flatMap({ try? BluetoothAddress($0) }) == address
                    && properties?["Adapter"]?.objectPath == adapter.path
            }
        }
    }

    /// A peripheral handle for the device at `path`.
    func peripheral(at path: DBusObjectPath) -> Peripheral? {
        // A device whose address bluetoothd does not give, or gives unreadable, has no handle.
        guard let central, let text = deviceProperties(path)?["Address"]?.string,
            let address = try? BluetoothAddress(text)
        else { return nil }
        return Peripheral(central: central, address: address, path: path)
    }

    // MARK: Disconnection reasons

    private func disconnectedSignal(_ message: DBusMessage) {
        guard let path = message.path, message.body.count >= 2, let name = message.body[0].string,
            let text = message.body[1].string
        else { return }
        confined.value.disconnectReasons[path] = DisconnectReason(name: name, message: text)
    }
}
