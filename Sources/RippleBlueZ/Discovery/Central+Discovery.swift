import Ripple
import RippleDBus

extension Central {
    /// Discovers peripherals: a ``PeripheralDiscovery`` for each advertisement that passes `filter`,
    /// on the loop thread, until cancelled — an *event* stream.
    ///
    /// Each subscriber has a buffer of its own (`buffering`, 4,096 discoveries then failure by default)
    /// between the advertisements and its demand: nothing is lost within it, even under a `for await`
    /// loop whose body awaits, and `statistics` counts what arrived, was delivered and was dropped. Past
    /// the buffer, the policy drops (counted) or fails the stream with
    /// ``BluetoothError/Kind/bufferOverflow``.
    ///
    /// bluetoothd's discovery starts with the first subscriber (of all the central's discovery streams)
    /// and stops after the last cancels; subscribers with different filters share it (bluetoothd gets
    /// their merged filter, each subscriber gets what its own filter asks for). A subscriber joining a
    /// discovery under way first gets the peripherals it has already seen. Discovery pauses while a
    /// connection is being made and resumes after. Fails at once with the state's error when the adapter
    /// is not powered on, and with bluetoothd's error when it refuses to discover. When the adapter or
    /// bluetoothd goes, the stream waits and discovery starts again once they are back
    /// (``isScanning`` shows the gap); with `resumesAfterInterruption` false it fails instead, with
    /// ``BluetoothError/Kind/poweredOff`` or ``BluetoothError/Kind/bluetoothUnavailable``. Closing the
    /// central ends it with ``BluetoothError/Kind/bluetoothUnavailable``.
    ///
    /// - Parameters:
    ///   - filter: what to discover.
    ///   - resumesAfterInterruption: whether the stream waits through bluetoothd's or the adapter's
    ///     absence (rather than failing).
    ///   - buffering: the subscriber's buffer and its policy when full.
    ///   - statistics: where the subscriber's discoveries are counted.
    /// - Returns: the discoveries, until cancelled or failed.
    public func startDiscovery(
        filter: DiscoveryFilter = .all, resumesAfterInterruption: Bool = true, buffering: EventBuffering,
        statistics: EventStatistics = EventStatistics()
    ) -> AnyPublisher<PeripheralDiscovery, BluetoothError> {
        let core = self.core
        return Deferred { () -> AnyPublisher<PeripheralDiscovery, BluetoothError> in
            if let error = core.operationError() { return Fail(error: error).eraseToAnyPublisher() }
            let id = core.nextID()
            let client = DiscoveryStateMachine.Client(filter: filter, resumes: resumesAfterInterruption)
            let subject = EventSubject<PeripheralDiscovery, BluetoothError>(
                buffering: buffering, statistics: statistics, context: .loop(core.loop), name: "discovery")
            let sink = DiscoverySink(
                deliver: { subject.send($0) }, fail: { subject.send(completion: .failure($0)) },
                isLive: { subject.subscriptionCount > 0 })
            return SubscribedThen(
                upstream: subject.handleEvents(receiveCancel: { core.perform { core.removeDiscoveryClient(id) } }),
                then: { core.perform { core.addDiscoveryClient(id, client, sink) } }
            ).eraseToAnyPublisher()
        }.eraseToAnyPublisher()
    }

    /// Discovers peripherals, each subscriber with a buffer of 4,096 discoveries then failure: an *event*
    /// stream (see ``startDiscovery(filter:resumesAfterInterruption:buffering:statistics:)``).
    ///
    /// - Parameters:
    ///   - filter: what to discover.
    ///   - resumesAfterInterruption: whether the stream waits through bluetoothd's or the adapter's absence.
    /// - Returns: the discoveries, until cancelled or failed.
    public func startDiscovery(filter: DiscoveryFilter = .all, resumesAfterInterruption: Bool = true)
        -> AnyPublisher<PeripheralDiscovery, BluetoothError>
    {
        startDiscovery(filter: filter, resumesAfterInterruption: resumesAfterInterruption, buffering: .default)
    }

    /// Whether this central discovers now, then each change: a *state* stream.
    ///
    /// True from bluetoothd's answer to the start until no discovery subscriber wants it (the last
    /// cancelled, a connection attempt paused it) or bluetoothd or the adapter went. A discovery
    /// subscriber gets advertisements only while it is true.
    public var isScanning: AnyPublisher<Bool, Never> {
        core.isScanning.eraseToAnyPublisher()
    }
}

extension CentralCore {
    /// A discovery client joins: the session starts (or changes its filter) for it.
    ///
    /// - Parameters:
    ///   - id: the client's identifier.
    ///   - client: its filter and whether it waits through interruptions.
    ///   - sink: where its advertisements go.
    func addDiscoveryClient(_ id: Int, _ client: DiscoveryStateMachine.Client, _ sink: DiscoverySink) {
        guard sink.isLive() else { return }
        confined.value.discoveryClients[id] = sink
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
                let sink = confined.value.discoveryClients.removeValue(forKey: id)
                sink?.fail(error)
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
                let sink = confined.value.discoveryClients[id]
                sink?.deliver(discovery)
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
            let sink = confined.value.discoveryClients[id]
            sink?.deliver(seen)
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
