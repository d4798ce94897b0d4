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
            let client = DiscoveryStateMachine.Client(filter: filter, resumes: resumesAfterInterruption)
            return subject.handleEvents(
                receiveSubscription: { _ in core.perform { core.addDiscoveryClient(id, client, subject) } },
                receiveCompletion: { _ in core.perform { core.removeDiscoveryClient(id) } },
                receiveCancel: { core.perform { core.removeDiscoveryClient(id) } }
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
    /// A discovery client joins: the session starts (or changes its filter) for it.
    ///
    /// - Parameters:
    ///   - id: the client's identifier.
    ///   - client: its filter and whether it waits through interruptions.
    ///   - subject: its stream.
    func addDiscoveryClient(
        _ id: Int, _ client: DiscoveryStateMachine.Client,
        _ subject: PassthroughSubject<PeripheralDiscovery, BluetoothError>
    ) {
        confined.value.discoveryClients[id] = subject
        discoveryEvent(.clientAdded(id, client))
    }

    /// A discovery client left: the session stops after the last.
    ///
    /// - Parameter id: the client's identifier.
    func removeDiscoveryClient(_ id: Int) {
        guard confined.value.discoveryClients.removeValue(forKey: id) != nil else { return }
        discoveryEvent(.clientRemoved(id))
    }

    /// A connection attempt starts (`true`) or ends: discovery pauses while any is under way.
    func pauseDiscovery(_ pause: Bool) {
        discoveryEvent(pause ? .paused : .resumed)
    }

    /// bluetoothd and the adapter are there: the session starts again for the clients that waited.
    func discoveryMayResume() {
        discoveryEvent(.available)
    }

    /// Discovery ends with `error`. When it is an `interruption` (bluetoothd or the adapter went), the
    /// clients that resume stay, to start it again when the state is powered on.
    func failDiscovery(with error: BluetoothError, interruption: Bool = false) {
        discoveryEvent(.lost(error, final: !interruption))
    }

    /// Feeds `event` to the discovery machine and performs its actions.
    ///
    /// - Parameter event: what happened.
    func discoveryEvent(_ event: DiscoveryStateMachine.Event) {
        var events = [event]
        while !events.isEmpty {
            let next = events.removeFirst()
            let actions: [DiscoveryStateMachine.Action]
            do {
                actions = try confined.value.discovery.handle(next)
            } catch {
                record(error)
                continue
            }
            for action in actions { execute(action, queueing: &events) }
        }
    }

    private func execute(_ action: DiscoveryStateMachine.Action, queueing events: inout [DiscoveryStateMachine.Event]) {
        switch action {
        case .start(let filter):
            guard let adapter else {
                events.append(.startFailed(BluetoothError(.noAdapter, "there is no Bluetooth adapter")))
                return
            }
            let call = connection.call(
                destination: BlueZ.service, path: adapter.path, interface: BlueZ.adapter, member: "SetDiscoveryFilter",
                arguments: [.stringVariantDictionary(filter)]
            )
            .flatMap { [connection] _ in
                connection.call(
                    destination: BlueZ.service, path: adapter.path, interface: BlueZ.adapter, member: "StartDiscovery")
            }
            confined.value.discoveryCall = call.sink(
                receiveCompletion: { [weak self] completion in
                    guard case .failure(let error) = completion else { return }
                    let failure = BluetoothError(error, during: "starting discovery")
                    self?.perform { [weak self] in self?.discoveryEvent(.startFailed(failure)) }
                },
                receiveValue: { [weak self] _ in self?.perform { [weak self] in self?.discoveryEvent(.startAnswered) } }
            )
        case .stop:
            guard let adapter else {
                events.append(.stopAnswered)
                return
            }
            confined.value.discoveryCall = connection.call(
                destination: BlueZ.service, path: adapter.path, interface: BlueZ.adapter, member: "StopDiscovery"
            ).sink(
                receiveCompletion: { [weak self] completion in
                    guard case .failure = completion else { return }
                    self?.perform { [weak self] in self?.discoveryEvent(.stopAnswered) }
                },
                receiveValue: { [weak self] _ in self?.perform { [weak self] in self?.discoveryEvent(.stopAnswered) } })
        case .cancelCall:
            confined.value.discoveryCall?.cancel()
            confined.value.discoveryCall = nil
        case .scanning(let scanning):
            if isScanning.value != scanning { isScanning.send(scanning) }
        case .reportAdvertisers(let ids):
            reportAdvertisers(to: ids)
        case .fail(let ids, let error):
            for id in ids {
                let client = confined.value.discoveryClients.removeValue(forKey: id)
                client?.send(completion: .failure(error))
            }
        }
    }

    /// Reports each device of the adapter that advertised during this discovery (bluetoothd keeps an
    /// `RSSI` only for those, and drops it when discovery ends) to the clients `ids`.
    private func reportAdvertisers(to ids: [Int]) {
        guard let adapter, !ids.isEmpty else { return }
        let seen = mirror.withLock { mirror -> [DBusObjectPath] in
            mirror.tree.objects(implementing: BlueZ.device).filter { path in
                let properties = mirror.tree.properties(of: path, interface: BlueZ.device)
                return properties?["RSSI"] != nil && properties?["Adapter"]?.objectPath == adapter.path
            }
        }
        for path in seen.sorted() {
            guard let properties = deviceProperties(path), let peripheral = peripheral(at: path) else { continue }
            let discovery = PeripheralDiscovery(peripheral: peripheral, properties: properties)
            for id in ids {
                guard let client = confined.value.discovery.clients[id], client.filter.matches(discovery) else {
                    continue
                }
                let subject = confined.value.discoveryClients[id]
                subject?.send(discovery)
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

    /// An advertisement (a device added with its RSSI, or a change of what it advertises) goes to the
    /// clients whose filter it passes.
    func discoveryTreeEvent(_ event: DBusObjectManagerEvent) {
        guard let path = Self.advertisementPath(of: event), confined.value.discovery.isDelivering else { return }
        let clients = confined.value.discovery.clients
        guard !clients.isEmpty, let properties = deviceProperties(path), properties["RSSI"] != nil,
            properties["Adapter"]?.objectPath == adapter?.path, let peripheral = peripheral(at: path)
        else { return }
        let seen = PeripheralDiscovery(peripheral: peripheral, properties: properties)
        for id in clients.keys.sorted() where clients[id]?.filter.matches(seen) == true {
            let subject = confined.value.discoveryClients[id]
            subject?.send(seen)
        }
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
