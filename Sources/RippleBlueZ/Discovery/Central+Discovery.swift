import Ripple
import RippleDBus

extension Central {
    /// Discovers peripherals: a ``PeripheralDiscovery`` for each advertisement that passes `filter`,
    /// on the loop thread, until cancelled.
    ///
    /// bluetoothd's discovery starts with the first subscriber (of all the central's discovery streams)
    /// and stops after the last cancels; subscribers with different filters share it (bluetoothd gets
    /// their merged filter, each subscriber gets what its own filter asks for). Discovery pauses while a
    /// connection is being made and resumes after. Fails at once with the state's error when the adapter
    /// is not powered on, and with bluetoothd's error when it refuses to discover. When the adapter or
    /// bluetoothd goes, the stream waits and discovery starts again once they are back
    /// (``isScanning`` shows the gap); with `resumesAfterInterruption` false it fails instead, with
    /// ``BluetoothError/Kind/poweredOff`` or ``BluetoothError/Kind/bluetoothUnavailable``. Closing the
    /// central ends it with ``BluetoothError/Kind/bluetoothUnavailable``.
    public func startDiscovery(filter: DiscoveryFilter = .all, resumesAfterInterruption: Bool = true)
        -> AnyPublisher<PeripheralDiscovery, BluetoothError>
    {
        let core = self.core
        return Deferred { () -> AnyPublisher<PeripheralDiscovery, BluetoothError> in
            if let error = core.operationError() { return Fail(error: error).eraseToAnyPublisher() }
            let subject = PassthroughSubject<PeripheralDiscovery, BluetoothError>()
            let id = core.nextID()
            return subject.handleEvents(
                receiveSubscription: { _ in
                    core.addDiscoveryClient(
                        id, .init(filter: filter, subject: subject, resumes: resumesAfterInterruption))
                },
                receiveCompletion: { _ in core.removeDiscoveryClient(id) },
                receiveCancel: { core.removeDiscoveryClient(id) }
            ).eraseToAnyPublisher()
        }.eraseToAnyPublisher()
    }

    /// Whether this central's discovery is on now, then each change.
    public var isScanning: AnyPublisher<Bool, Never> {
        core.isScanning.removeDuplicates().eraseToAnyPublisher()
    }

    /// The peripherals seen by a discovery with `filter`, strongest first, after each change: each
    /// entry is the latest advertisement of a peripheral. Runs discovery while subscribed; fails as
    /// ``startDiscovery(filter:resumesAfterInterruption:)``.
    ///
    /// An entry leaves the list when bluetoothd forgets the peripheral (it removes a device it has not
    /// heard for its `TemporaryTimeout`, 30 s by default) and, when `expiry` is given, when no new
    /// advertisement came for `expiry`. bluetoothd reports an advertisement only when something in it
    /// changes, so a peripheral that always advertises the same data at the same strength is reported
    /// once: a short `expiry` drops it while it is still there.
    public func availablePeripherals(
        filter: DiscoveryFilter = .all, expiry: Duration? = nil
    ) -> AnyPublisher<[PeripheralDiscovery], BluetoothError> {
        typealias Seen = [DBusObjectPath: (discovery: PeripheralDiscovery, at: ContinuousClock.Instant)]
        enum Input {
            case seen(PeripheralDiscovery)
            case gone(DBusObjectPath)
            case tick
        }
        let ticks: AnyPublisher<Input, BluetoothError> =
            expiry.map { expiry in
                let tick = Swift.max(expiry / 4, .milliseconds(50))
                return Publishers.every(.nanoseconds(tick.clampedNanoseconds), on: loop)
                    .map { _ in Input.tick }.setFailureType(to: BluetoothError.self).eraseToAnyPublisher()
            } ?? Empty<Input, BluetoothError>(completeImmediately: false).eraseToAnyPublisher()
        let forgotten = core.treeEvents.compactMap { event -> Input? in
            switch event {
            case .interfacesRemoved(let path, let interfaces) where interfaces.contains(BlueZ.device):
                return .gone(path)
            case .propertiesChanged(let path, let change)
            where change.interface == BlueZ.device && change.invalidated.contains("RSSI"):
                return .gone(path)
            default:
                return nil
            }
        }.setFailureType(to: BluetoothError.self)
        return startDiscovery(filter: filter).map(Input.seen)
            .merge(with: forgotten, ticks)
            .scan((Seen(), changed: false)) { state, input in
                var (seen, _) = state
                let now = ContinuousClock.now
                switch input {
                case .seen(let discovery):
                    seen[discovery.peripheral.path] = (discovery, now)
                    return (seen, true)
                case .gone(let path):
                    let removed = seen.removeValue(forKey: path) != nil
                    return (seen, removed)
                case .tick:
                    let before = seen.count
                    if let expiry { seen = seen.filter { now - $0.value.at < expiry } }
                    return (seen, seen.count != before)
                }
            }
            .filter(\.changed)
            .map { state in
                state.0.values.map(\.discovery).sorted {
                    ($0.rssi ?? Int.min, $1.address) > ($1.rssi ?? Int.min, $0.address)
                }
            }
            .eraseToAnyPublisher()
    }
}

extension CentralCore {
    func addDiscoveryClient(_ id: Int, _ client: DiscoveryBook.Client) {
        let isOn = lock.withLock { () -> Bool in
            discovery.clients[id] = client
            return discovery.isOn
        }
        // A client joining a discovery under way hears of the peripherals it has already seen (their
        // advertisements may not change again), once it has had the chance to ask for them.
        if isOn { loop.schedule { [weak self] in self?.reportAdvertisers(to: [client]) } }
        updateDiscovery(filterChanged: true)
    }

    /// Reports each device of the adapter that advertised during this discovery (bluetoothd keeps an
    /// `RSSI` only for those, and drops it when discovery ends) to `clients`.
    func reportAdvertisers(to clients: [DiscoveryBook.Client]) {
        guard let adapter, !clients.isEmpty else { return }
        let seen = lock.withLock { () -> [DBusObjectPath] in
            tree.objects(implementing: BlueZ.device).filter { path in
                let properties = tree.properties(of: path, interface: BlueZ.device)
                return properties?["RSSI"] != nil && properties?["Adapter"]?.objectPath == adapter.path
            }
        }
        for path in seen.sorted(by: { $0.description < $1.description }) {
            guard let properties = deviceProperties(path), let peripheral = peripheral(at: path) else { continue }
            let discovery = PeripheralDiscovery(peripheral: peripheral, properties: properties)
            for client in clients where client.filter.matches(discovery) { client.subject.send(discovery) }
        }
    }

    func removeDiscoveryClient(_ id: Int) {
        let removed = lock.withLock { discovery.clients.removeValue(forKey: id) != nil }
        if removed { updateDiscovery(filterChanged: true) }
    }

    /// A connection attempt starts (`true`) or ends: discovery pauses while any is under way.
    func pauseDiscovery(_ pause: Bool) {
        lock.withLock { discovery.pausedBy += pause ? 1 : -1 }
        updateDiscovery(filterChanged: false)
    }

    func discoveryMayResume() {
        updateDiscovery(filterChanged: false)
    }

    /// Brings bluetoothd's discovery in line with the clients: sets the merged filter and starts it, or
    /// stops it. One change at a time; the end of each looks again.
    func updateDiscovery(filterChanged: Bool) {
        guard let adapter else { return }
        enum Step {
            case start([String: DBusValue])
            case stop
        }
        let step = lock.withLock { () -> Step? in
            if filterChanged { discovery.filterIsStale = true }
            // The change under way looks again when it ends.
            guard !discovery.isChanging else { return nil }
            if discovery.wanted, !discovery.isOn || discovery.filterIsStale {
                discovery.isChanging = true
                discovery.filterIsStale = false
                return .start(DiscoveryFilter.merged(discovery.clients.values.map(\.filter)))
            }
            if !discovery.wanted, discovery.isOn {
                discovery.isChanging = true
                return .stop
            }
            return nil
        }
        guard let step, operationError() == nil else {
            if step != nil { lock.withLock { discovery.isChanging = false } }
            return
        }
        switch step {
        case .start(let filter):
            let call = connection.call(
                destination: BlueZ.service, path: adapter.path, interface: BlueZ.adapter, member: "SetDiscoveryFilter",
                arguments: [.stringVariantDictionary(filter)]
            )
            .flatMap { [connection] _ in
                connection.call(
                    destination: BlueZ.service, path: adapter.path, interface: BlueZ.adapter, member: "StartDiscovery")
            }
            run(call, operation: "starting discovery") { [weak self] result in
                guard let self else { return }
                let wasOn = lock.withLock { () -> Bool in
                    defer {
                        discovery.isChanging = false
                        if case .success = result { discovery.isOn = true }
                    }
                    return discovery.isOn
                }
                switch result {
                case .success:
                    isScanning.send(true)
                    // Advertisements that came before the answer went unreported.
                    if !wasOn { reportAdvertisers(to: lock.withLock { Array(discovery.clients.values) }) }
                    updateDiscovery(filterChanged: false)
                case .failure(let error):
                    // bluetoothd answers InProgress when this client already discovers: keep going.
                    if error.kind == .inProgress || wasOn {
                        lock.withLock { discovery.isOn = true }
                        isScanning.send(true)
                    } else {
                        // Refused because bluetoothd or the adapter went meanwhile: an interruption.
                        failDiscovery(with: error, interruption: operationError() != nil)
                    }
                    // What changed meanwhile (the last client left, a filter came) is done now.
                    updateDiscovery(filterChanged: false)
                }
            }
        case .stop:
            let call = connection.call(
                destination: BlueZ.service, path: adapter.path, interface: BlueZ.adapter, member: "StopDiscovery")
            run(call, operation: "stopping discovery") { [weak self] _ in
                guard let self else { return }
                lock.withLock {
                    discovery.isChanging = false
                    discovery.isOn = false
                }
                isScanning.send(false)
                updateDiscovery(filterChanged: false)
            }
        }
    }

    /// Runs a call and hands its result (mapped to a ``BluetoothError``) to `completion` on the loop.
    func run(
        _ call: some Publisher<DBusMessage, DBusError>, operation: String,
        _ completion: @escaping @Sendable (Result<DBusMessage, BluetoothError>) -> Void
    ) {
        let box = CancellableBox()
        box.cancellable = call.sink(
            receiveCompletion: { result in
                if case .failure(let error) = result { completion(.failure(BluetoothError(error, during: operation))) }
                box.cancellable = nil
            },
            receiveValue: { message in completion(.success(message)) })
    }

    /// Discovery ends with `error`. When it is an `interruption` (bluetoothd or the adapter went), the
    /// clients that resume stay, to start it again when the state is powered on.
    func failDiscovery(with error: BluetoothError, interruption: Bool = false) {
        let clients = lock.withLock { () -> [DiscoveryBook.Client] in
            let ending = discovery.clients.filter { !interruption || !$0.value.resumes }
            for id in ending.keys { discovery.clients[id] = nil }
            discovery.isOn = false
            if !discovery.clients.isEmpty { discovery.filterIsStale = true }
            return Array(ending.values)
        }
        if isScanning.value { isScanning.send(false) }
        for client in clients { client.subject.send(completion: .failure(error)) }
    }

    /// An advertisement (a device added with its RSSI, or a change of what it advertises) goes to the
    /// clients whose filter it passes.
    func discoveryTreeEvent(_ event: DBusObjectManagerEvent) {
        guard let path = Self.advertisementPath(of: event) else { return }
        let clients: [DiscoveryBook.Client] = lock.withLock {
            discovery.isOn ? Array(discovery.clients.values) : []
        }
        guard !clients.isEmpty, let properties = deviceProperties(path), properties["RSSI"] != nil,
            properties["Adapter"]?.objectPath == adapter?.path, let peripheral = peripheral(at: path)
        else { return }
        let seen = PeripheralDiscovery(peripheral: peripheral, properties: properties)
        for client in clients where client.filter.matches(seen) { client.subject.send(seen) }
    }

    /// The device an event reports an advertisement of: added with an RSSI, or a change of what it
    /// advertises.
    private static func advertisementPath(of event: DBusObjectManagerEvent) -> DBusObjectPath? {
        switch event {
        case .interfacesAdded(let path, let interfaces):
            return interfaces[BlueZ.device]?["RSSI"] != nil ? path : nil
        case .propertiesChanged(let path, let change):
            guard change.interface == BlueZ.device else { return nil }
            return change.changed.keys.contains(where: advertisedProperties.contains) ? path : nil
        default:
            return nil
        }
    }
}

private let advertisedProperties: Set<String> = ["RSSI", "ManufacturerData", "ServiceData", "TxPower", "Name", "UUIDs"]

/// Holds a subscription until it completes.
final class CancellableBox: Sendable {
    private let lock = Lock()
    nonisolated(unsafe) private var stored: AnyCancellable?

    var cancellable: AnyCancellable? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
