import Ripple
import RippleDBus
import RippleLoop

/// The central's mirror of bluetoothd: its object tree (from one `ObjectManager` subscription), the
/// state derived from it, and the bookkeeping of discovery, connections and notification sessions.
///
/// Every event from the bus arrives on the loop thread; the mirror is guarded by `lock` so that
/// operations started on any thread can read it. Subjects are sent to outside the lock.
final class CentralCore: Sendable {
    let connection: DBusConnection
    let loop: EventLoop
    let adapterName: String?
    let ownsConnection: Bool

    let lock = Lock()
    nonisolated(unsafe) var tree = DBusObjectManagerState()
    /// Whether `org.bluez` has an owner (nil before the bus answered).
    nonisolated(unsafe) private var hasOwner: Bool?
    /// Why the tree subscription failed (access denied, …), until bluetoothd changes owner.
    nonisolated(unsafe) private var treeFailure: DBusError?
    nonisolated(unsafe) private var treeReceived = false
    nonisolated(unsafe) private var treeSubscription: AnyCancellable?
    nonisolated(unsafe) private var subscriptions: [AnyCancellable] = []

    /// Discovery sessions, connection attempts and notification sessions (guarded by `lock`).
    nonisolated(unsafe) var discovery = DiscoveryBook()
    nonisolated(unsafe) var attempts: [DBusObjectPath: ConnectionAttempt] = [:]
    nonisolated(unsafe) var connectedPaths: [DBusObjectPath: Peripheral] = [:]
    nonisolated(unsafe) var disconnectReasons: [DBusObjectPath: DisconnectionReason] = [:]
    nonisolated(unsafe) var notifications = NotificationBook()
    /// The connection tasks of each peripheral, by upper-case address, in the order added.
    nonisolated(unsafe) var connectionTasks: [String: [(id: Int, task: ConnectionTask)]] = [:]
    /// The peripherals lent to another tool (``PeripheralHandOver``).
    nonisolated(unsafe) var handedOver: Set<DBusObjectPath> = []
    /// The peripherals under a reconnection policy.
    nonisolated(unsafe) var reconnections: [DBusObjectPath: ReconnectState] = [:]
    /// Each device's GATT operation queue.
    nonisolated(unsafe) var gattQueues: [DBusObjectPath: GATTOperationQueue] = [:]
    nonisolated(unsafe) private var lastID = 0

    let state = CurrentValueSubject<CentralState, Never>(.unknown)
    /// Each change of the tree, after it is applied.
    let treeEvents = PassthroughSubject<DBusObjectManagerEvent, Never>()
    let connectionEvents = PassthroughSubject<ConnectionEvent, Never>()
    let connectedPeripherals = CurrentValueSubject<[DBusObjectPath], Never>([])
    let connectingPeripherals = CurrentValueSubject<[DBusObjectPath], Never>([])
    let isScanning = CurrentValueSubject<Bool, Never>(false)

    /// Back to the public object, for the peripherals the core creates (weak: the central owns the core).
    nonisolated(unsafe) weak var central: Central?

    init(connection: DBusConnection, adapterName: String?, ownsConnection: Bool) {
        self.connection = connection
        self.loop = connection.loop
        self.adapterName = adapterName
        self.ownsConnection = ownsConnection
    }

    /// Starts following bluetoothd: its owner and its tree.
    func start() {
        let owner = connection.nameOwner(of: BlueZ.service).sink(
            receiveCompletion: { [weak self] _ in self?.busClosed() },
            receiveValue: { [weak self] owner in self?.ownerChanged(owner) })
        let reasons = connection.signals(from: BlueZ.service, interface: BlueZ.device, member: "Disconnected").sink(
            receiveCompletion: { _ in },
            receiveValue: { [weak self] message in self?.disconnectedSignal(message) })
        // Characteristic values take the connection's fast path: a notification over StartNotify is a
        // `Value` change that skips the object tree (the tree's `Value` stays as it was).
        let values = connection.byteArrayPropertyChanges(
            from: BlueZ.service, interface: BlueZ.characteristic, property: "Value"
        )
        .sink(
            receiveCompletion: { _ in },
            receiveValue: { [weak self] change in self?.characteristicValueChanged(change.path, to: change.bytes) })
        lock.withLock { subscriptions = [owner, reasons, values] }
        subscribeToTree()
    }

    func stop() {
        let cancellables = lock.withLock { () -> [AnyCancellable] in
            defer {
                subscriptions = []
                treeSubscription = nil
            }
            return subscriptions + (treeSubscription.map { [$0] } ?? [])
        }
        for cancellable in cancellables { cancellable.cancel() }
        // Streams under way end now, whether or not the connection is the central's own.
        failEverything(with: BluetoothError(.bluetoothUnavailable, "the central was closed"), final: true)
        if ownsConnection { connection.close() }
    }

    private func subscribeToTree() {
        let subscription = connection.managedObjects(destination: BlueZ.service).sink(
            receiveCompletion: { [weak self] completion in
                if case .failure(let error) = completion { self?.treeFailed(error) }
            },
            receiveValue: { [weak self] event in self?.apply(event) })
        lock.withLock { treeSubscription = subscription }
    }

    // MARK: Events from the bus

    private func ownerChanged(_ owner: String?) {
        let retry = lock.withLock { () -> Bool in
            hasOwner = owner != nil
            // A failed subscription is tried again when bluetoothd comes (back).
            guard owner != nil, treeFailure != nil else { return false }
            treeFailure = nil
            return true
        }
        if retry { subscribeToTree() }
        if owner == nil { failEverything(with: .bluetoothUnavailable) }
        updateState()
    }

    private func treeFailed(_ error: DBusError) {
        lock.withLock {
            treeFailure = error
            treeSubscription = nil
        }
        updateState()
    }

    private func busClosed() {
        lock.withLock { hasOwner = false }
        failEverything(with: BluetoothError(.bluetoothUnavailable, "the connection to the bus closed"), final: true)
        updateState()
    }

    private func apply(_ event: DBusObjectManagerEvent) {
        lock.withLock {
            tree.apply(event)
            treeReceived = true
        }
        if Self.mayChangeState(event) { updateState() }
        connectionTreeEvent(event)
        notificationTreeEvent(event)
        discoveryTreeEvent(event)
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
        lock.withLock {
            tree.objects(implementing: BlueZ.adapter).compactMap { path in
                BluetoothAdapter(path: path, properties: tree.properties(of: path, interface: BlueZ.adapter) ?? [:])
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
        let (owner, failure, received) = lock.withLock { (hasOwner, treeFailure, treeReceived) }
        if let failure, failure.remoteName == "org.freedesktop.DBus.Error.AccessDenied" { return .notAuthorized }
        guard let owner else { return .unknown }
        guard owner else { return .bluetoothUnavailable }
        if failure != nil { return .bluetoothUnavailable }
        guard received else { return .unknown }
        guard let adapter else { return .noAdapter }
        return adapter.isPowered ? .poweredOn : .poweredOff
    }

    private func updateState() {
        let new = computeState()
        // Unknown only until the first answer: a returning bluetoothd is unavailable until its tree comes.
        guard state.value != new, new != .unknown || state.value == .unknown else { return }
        state.send(new)
        if new != .poweredOn, new != .unknown, let error = new.error { failEverything(with: error) }
        if new == .poweredOn {
            discoveryMayResume()
            reconnectionsMayResume()
        }
    }

    /// The error an operation fails with now, or nil when it can run.
    func operationError() -> BluetoothError? {
        state.value.error
    }

    /// A new identifier for a discovery client, a connection subscriber or a listener.
    func nextID() -> Int {
        lock.withLock {
            lastID += 1
            return lastID
        }
    }

    /// Ends what is under way when bluetoothd or the adapter goes. Peripherals under a reconnection
    /// policy keep their listeners and wait for bluetoothd and the adapter to return, unless the end is
    /// `final` (the central or its bus closed).
    private func failEverything(with error: BluetoothError, final: Bool = false) {
        failDiscovery(with: error, interruption: !final)
        failAttempts(with: error, final: final)
        failNotifications(with: error)
    }

    // MARK: Reading the tree

    /// The `Device1` properties of the device at `path`, if it is in the tree.
    func deviceProperties(_ path: DBusObjectPath) -> [String: DBusValue]? {
        lock.withLock { tree.properties(of: path, interface: BlueZ.device) }
    }

    /// The device of `address` on the central's adapter.
    func devicePath(address: String) -> DBusObjectPath? {
        guard let adapter else { return nil }
        let wanted = address.uppercased()
        return lock.withLock {
            tree.objects(implementing: BlueZ.device).first { path in
                let properties = tree.properties(of: path, interface: BlueZ.device)
                return properties?["Address"]?.string?.uppercased() == wanted
                    && properties?["Adapter"]?.objectPath == adapter.path
            }
        }
    }

    /// A peripheral handle for the device at `path`.
    func peripheral(at path: DBusObjectPath) -> Peripheral? {
        guard let central, let address = deviceProperties(path)?["Address"]?.string else { return nil }
        return Peripheral(central: central, address: address, path: path)
    }

    // MARK: Disconnection reasons

    private func disconnectedSignal(_ message: DBusMessage) {
        guard let path = message.path, message.body.count >= 2, let name = message.body[0].string,
            let text = message.body[1].string
        else { return }
        lock.withLock { disconnectReasons[path] = DisconnectionReason(name: name, message: text) }
    }
}
