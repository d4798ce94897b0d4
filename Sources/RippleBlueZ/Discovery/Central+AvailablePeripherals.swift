import Ripple
import RippleDBus
import RippleLoop

extension Central {
    /// The peripherals available to a discovery with `filter`, strongest first: a *state* stream. Each
    /// entry is the latest advertisement of a peripheral.
    ///
    /// Each subscriber starts a discovery session of its own (shared with the central's other discovery
    /// streams at bluetoothd) and gets, first, the peripherals bluetoothd already has advertisements of
    /// that pass `filter` (possibly none), then the list after each change. A slow subscriber gets the
    /// latest list each time it asks, never a stale one: a `for await` loop whose body awaits ends on the
    /// current list. Fails as ``startDiscovery(filter:resumesAfterInterruption:)``.
    ///
    /// An entry leaves the list when bluetoothd forgets the peripheral (it removes a device it has not
    /// heard for its `TemporaryTimeout`, 30 s by default) and, when `expiry` is given, when no new
    /// advertisement came for `expiry`. bluetoothd reports an advertisement only when something in it
    /// changes, so a peripheral that always advertises the same data at the same strength is reported
    /// once: a short `expiry` drops it while it is still there.
    ///
    /// - Parameters:
    ///   - filter: what to discover.
    ///   - expiry: how long an entry stays without a new advertisement, or nil for as long as bluetoothd
    ///     knows the peripheral.
    /// - Returns: the list now, then after each change, until cancelled or failed.
    public func availablePeripherals(
        filter: DiscoveryFilter = .all, expiry: Duration? = nil
    ) -> AnyPublisher<[PeripheralDiscovery], BluetoothError> {
        let core = self.core
        return Deferred { () -> AnyPublisher<[PeripheralDiscovery], BluetoothError> in
            if let error = core.operationError() { return Fail(error: error).eraseToAnyPublisher() }
            let id = core.nextID()
            let known = core.advertisers(matching: filter)
            let subject = StateSubject<[PeripheralDiscovery], BluetoothError>(
                AvailabilityWatcher.sorted(known), context: .loop(core.loop))
            let client = DiscoveryStateMachine.Client(filter: filter, resumes: true)
            return SubscribedThen(
                upstream: subject.handleEvents(receiveCancel: { core.perform { core.removeAvailability(id) } }),
                then: { core.perform { core.addAvailability(id, client, known: known, expiry: expiry, subject) } }
            ).eraseToAnyPublisher()
        }.eraseToAnyPublisher()
    }
}

/// One ``Central/availablePeripherals(filter:expiry:)`` subscriber's list, kept up to date on the loop
/// thread (loop-confined, in ``CentralCore/Confined``).
struct AvailabilityWatcher {
    let subject: StateSubject<[PeripheralDiscovery], BluetoothError>
    let expiry: Duration?
    /// Each peripheral's latest advertisement, and when it came.
    var seen: [DBusObjectPath: (discovery: PeripheralDiscovery, at: ContinuousClock.Instant)]
    /// The timer that drops entries older than `expiry`.
    var timer: AnyCancellable?

    /// The list a subscriber sees: strongest first, then by address.
    static func sorted(_ discoveries: [PeripheralDiscovery]) -> [PeripheralDiscovery] {
        discoveries.sorted { ($0.rssi ?? Int.min, $1.address) > ($1.rssi ?? Int.min, $0.address) }
    }

    /// Tells the subscriber the list now.
    func publish() {
        subject.send(Self.sorted(seen.values.map(\.discovery)))
    }
}

extension CentralCore {
    /// The devices of the central's adapter that bluetoothd has an advertisement of (an `RSSI`: it keeps
    /// one only for devices heard during a discovery) and that pass `filter`.
    ///
    /// - Parameter filter: what to keep.
    /// - Returns: their discoveries.
    func advertisers(matching filter: DiscoveryFilter) -> [PeripheralDiscovery] {
        guard let adapter else { return [] }
        let devices = mirror.withLock { mirror in
            mirror.tree.objects(implementing: BlueZ.device).compactMap {
                path -> (DBusObjectPath, [String: DBusValue])? in
                guard let properties = mirror.tree.properties(of: path, interface: BlueZ.device),
                    properties["RSSI"] != nil, properties["Adapter"]?.objectPath == adapter.path
                else { return nil }
                return (path, properties)
            }
        }
        return devices.compactMap { path, properties in
            guard let peripheral = peripheral(at: path) else { return nil }
            let discovery = PeripheralDiscovery(peripheral: peripheral, properties: properties)
            return filter.matches(discovery) ? discovery : nil
        }
    }

    /// An ``Central/availablePeripherals(filter:expiry:)`` subscriber joins: its discovery client starts.
    ///
    /// - Parameters:
    ///   - id: the subscriber's identifier (also its discovery client's).
    ///   - client: its filter.
    ///   - known: the list it was given first.
    ///   - expiry: how long an entry stays without a new advertisement.
    ///   - subject: its list.
    func addAvailability(
        _ id: Int, _ client: DiscoveryStateMachine.Client, known: [PeripheralDiscovery], expiry: Duration?,
        _ subject: StateSubject<[PeripheralDiscovery], BluetoothError>
    ) {
        guard subject.subscriptionCount > 0 else { return }
        let now = ContinuousClock.now
        var watcher = AvailabilityWatcher(
            subject: subject, expiry: expiry,
            seen: Dictionary(known.map { ($0.peripheral.path, ($0, now)) }, uniquingKeysWith: { _, last in last }))
        if let expiry { watcher.timer = availabilityTimer(id, every: Swift.max(expiry / 4, .milliseconds(50))) }
        confined.value.availability[id] = watcher
        let sink = DiscoverySink(
            deliver: { [weak self] discovery in self?.advertised(discovery, to: id) },
            fail: { [weak self] error in
                let watcher = self?.confined.value.availability.removeValue(forKey: id)
                watcher?.timer?.cancel()
                subject.send(completion: .failure(error))
            },
            isLive: { subject.subscriptionCount > 0 })
        addDiscoveryClient(id, client, sink)
    }

    /// An ``Central/availablePeripherals(filter:expiry:)`` subscriber left: its discovery client goes.
    ///
    /// - Parameter id: the subscriber's identifier.
    func removeAvailability(_ id: Int) {
        guard let watcher = confined.value.availability.removeValue(forKey: id) else { return }
        watcher.timer?.cancel()
        removeDiscoveryClient(id)
    }

    private func advertised(_ discovery: PeripheralDiscovery, to id: Int) {
        guard confined.value.availability[id] != nil else { return }
        confined.value.availability[id]?.seen[discovery.peripheral.path] = (discovery, ContinuousClock.now)
        // Published from a copy: a subscriber may call back into the central.
        let watcher = confined.value.availability[id]
        watcher?.publish()
    }

    /// The timer that drops the entries of `id` older than its expiry, every `tick`.
    private func availabilityTimer(_ id: Int, every tick: Duration) -> AnyCancellable {
        loop.after(tick) { [weak self] in
            self?.perform { [weak self] in
                guard let self, let watcher = confined.value.availability[id], let expiry = watcher.expiry else {
                    return
                }
                let now = ContinuousClock.now
                let fresh = watcher.seen.filter { now - $0.value.at < expiry }
                if fresh.count != watcher.seen.count {
                    confined.value.availability[id]?.seen = fresh
                    let changed = confined.value.availability[id]
                    changed?.publish()
                }
                let next = availabilityTimer(id, every: tick)
                confined.value.availability[id]?.timer = next
            }
        }
    }

    /// A device bluetoothd forgets (removed, or its `RSSI` dropped when discovery ended) leaves every
    /// list.
    func availabilityTreeEvent(_ event: DBusObjectManagerEvent) {
        guard !confined.value.availability.isEmpty else { return }
        let gone: DBusObjectPath
        switch event {
        case .interfacesRemoved(let path, let interfaces) where interfaces.contains(BlueZ.device):
            gone = path
        case .propertiesChanged(let path, let change)
        where change.interface == BlueZ.device && change.invalidated.contains("RSSI"):
            gone = path
        default:
            return
        }
        for id in confined.value.availability.keys.sorted() where confined.value.availability[id]?.seen[gone] != nil {
            confined.value.availability[id]?.seen[gone] = nil
            let watcher = confined.value.availability[id]
            watcher?.publish()
        }
    }
}
