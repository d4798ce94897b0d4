import Ripple
import RippleDBus

extension Central {
    /// Connects to the peripheral of `discovery`: see ``connect(to:timeout:autoReconnect:)-(String,_,_)``.
    public func connect(
        to discovery: PeripheralDiscovery, timeout: Duration = .seconds(30), autoReconnect: ReconnectPolicy? = nil
    ) -> AnyPublisher<Peripheral, BluetoothError> {
        connect(to: discovery.address, timeout: timeout, autoReconnect: autoReconnect)
    }

    /// Connects to `peripheral`: see ``connect(to:timeout:autoReconnect:)-(String,_,_)``.
    public func connect(
        to peripheral: Peripheral, timeout: Duration = .seconds(30), autoReconnect: ReconnectPolicy? = nil
    ) -> AnyPublisher<Peripheral, BluetoothError> {
        connect(to: peripheral.address, timeout: timeout, autoReconnect: autoReconnect)
    }

    /// Connects to the peripheral with Bluetooth address `address` (seen in a scan, or stored by
    /// bluetoothd from before) and emits it once GATT is usable — its services resolved — then finishes.
    ///
    /// The attempt succeeds when bluetoothd has answered `Device1.Connect()` (or signalled `Connected`)
    /// and signals `ServicesResolved`; it fails with ``BluetoothError/Kind/connectionFailed`` and
    /// bluetoothd's reason when `Connect()` fails, when the link drops (`Connected = false`) or the device
    /// is removed before that, and with ``BluetoothError/Kind/timeout`` after `timeout` (the attempt is
    /// then cancelled with `Disconnect()`). A successful `Connect()` answer counts as connected even
    /// when bluetoothd never signals `Connected = true`. Subscribers connecting to the same peripheral
    /// share one attempt; when the last cancels, the attempt is cancelled. Discovery pauses meanwhile.
    /// Fails at once with the state's error when the adapter is not powered on, and with
    /// ``BluetoothError/Kind/peripheralNotFound`` when bluetoothd does not know the address.
    ///
    /// With `autoReconnect`, the peripheral stays under that ``ReconnectPolicy`` once connected: when
    /// its link drops, the central reconnects it and re-arms its listeners (they wait meanwhile, and see
    /// no error); ``disconnect(_:)`` ends the policy.
    public func connect(
        to address: String, timeout: Duration = .seconds(30), autoReconnect: ReconnectPolicy? = nil
    ) -> AnyPublisher<Peripheral, BluetoothError> {
        let core = self.core
        return Deferred { () -> AnyPublisher<Peripheral, BluetoothError> in
            if let error = core.operationError() { return Fail(error: error).eraseToAnyPublisher() }
            guard let path = core.devicePath(address: address), let peripheral = core.peripheral(at: path) else {
                return Fail(
                    error: BluetoothError(.peripheralNotFound, "bluetoothd does not know \(address): discover it first")
                )
                .eraseToAnyPublisher()
            }
            let adopt: @Sendable (Peripheral) -> Void = { ready in
                if let autoReconnect { core.setReconnectPolicy(autoReconnect, for: ready) }
            }
            if core.adoptIfReady(peripheral) {
                adopt(peripheral)
                return Just(peripheral).setFailureType(to: BluetoothError.self).eraseToAnyPublisher()
            }
            let subject = PassthroughSubject<Peripheral, BluetoothError>()
            let id = core.nextID()
            return subject.handleEvents(
                receiveSubscription: { _ in core.joinAttempt(peripheral, id: id, subject: subject, timeout: timeout) },
                receiveOutput: adopt,
                receiveCancel: { core.leaveAttempt(peripheral, id: id) }
            ).eraseToAnyPublisher()
        }.eraseToAnyPublisher()
    }

    /// Disconnects `peripheral` (or cancels a connection attempt to it); emits once bluetoothd has
    /// taken the link down, then finishes. Succeeds at once when it is not connected. Fails with
    /// bluetoothd's error.
    public func disconnect(_ peripheral: Peripheral) -> AnyPublisher<Void, BluetoothError> {
        let core = self.core
        return Deferred { () -> AnyPublisher<Void, BluetoothError> in
            core.cancelReconnection(peripheral.path)
            core.cancelAttempt(
                peripheral.path, with: BluetoothError(.connectionFailed, "the connection was cancelled by disconnect"))
            core.disconnecting(peripheral.path)
            return core.connection.call(
                destination: BlueZ.service, path: peripheral.path, interface: BlueZ.device, member: "Disconnect"
            ).map { _ in () }.mapError { BluetoothError($0, during: "disconnecting \(peripheral.address)") }
                .eraseToAnyPublisher()
        }.eraseToAnyPublisher()
    }

    /// Each connection event of this central (connecting, connected, ready, failed, disconnected), from
    /// now on.
    public var connectionEvents: AnyPublisher<ConnectionEvent, Never> {
        core.connectionEvents.eraseToAnyPublisher()
    }

    /// The peripherals connected and ready now, then after each change.
    public var connectedPeripherals: AnyPublisher<[Peripheral], Never> {
        let core = self.core
        return core.connectedPeripherals.map { $0.compactMap(core.peripheral(at:)) }.eraseToAnyPublisher()
    }

    /// The peripherals being connected now, then after each change.
    public var connectingPeripherals: AnyPublisher<[Peripheral], Never> {
        let core = self.core
        return core.connectingPeripherals.map { $0.compactMap(core.peripheral(at:)) }.eraseToAnyPublisher()
    }

    /// The peripherals bluetoothd knows on the central's adapter now — stored ones, connected ones
    /// (also by other programs), and those seen recently — without a scan, by address.
    public var knownPeripherals: [Peripheral] {
        guard let adapter else { return [] }
        let paths = core.lock.withLock {
            core.tree.objects(implementing: BlueZ.device).filter {
                core.tree.properties(of: $0, interface: BlueZ.device)?["Adapter"]?.objectPath == adapter.path
            }
        }
        return paths.compactMap(core.peripheral(at:)).sorted { $0.address < $1.address }
    }

    /// The peripheral with `address` if bluetoothd knows it (see ``knownPeripherals``).
    public func peripheral(address: String) -> Peripheral? {
        core.devicePath(address: address).flatMap(core.peripheral(at:))
    }
}

extension CentralCore {
    /// Whether `peripheral` is connected and resolved already (by this central or another program),
    /// with no attempt under way: it is then counted as connected.
    func adoptIfReady(_ peripheral: Peripheral) -> Bool {
        let path = peripheral.path
        guard deviceProperties(path)?["ServicesResolved"]?.boolean == true else { return false }
        let adopted = lock.withLock { () -> Bool in
            guard attempts[path] == nil else { return false }
            connectedPaths[path] = peripheral
            return true
        }
        if adopted { publishConnectionLists() }
        return adopted
    }

    func joinAttempt(
        _ peripheral: Peripheral, id: Int, subject: PassthroughSubject<Peripheral, BluetoothError>, timeout: Duration
    ) {
        let path = peripheral.path
        let isNew = lock.withLock { () -> Bool in
            if attempts[path] != nil {
                attempts[path]?.subjects[id] = subject
                return false
            }
            var attempt = ConnectionAttempt(peripheral: peripheral)
            attempt.subjects[id] = subject
            attempts[path] = attempt
            return true
        }
        guard isNew else { return }
        connectionEvents.send(.connecting(peripheral))
        publishConnectionLists()
        pauseDiscovery(true)
        let timer = loop.after(timeout) { [weak self] in
            self?.finishAttempt(path, .timeout("connecting to \(peripheral.address)"), disconnect: true)
        }
        let call = connection.call(
            destination: BlueZ.service, path: path, interface: BlueZ.device, member: "Connect",
            timeout: timeout + .seconds(1)
        ).sink(
            receiveCompletion: { [weak self] completion in
                guard case .failure(let error) = completion else { return }
                // Connected meanwhile (by another program, or a moment ago): as good as an answer.
                if error.remoteName == "org.bluez.Error.AlreadyConnected" {
                    self?.connectReplied(path)
                    return
                }
                var failure = BluetoothError(error, during: "connecting to \(peripheral.address)")
                if failure.kind == .failed { failure.kind = .connectionFailed }
                self?.finishAttempt(path, failure, disconnect: false)
            },
            receiveValue: { [weak self] _ in self?.connectReplied(path) })
        lock.withLock {
            attempts[path]?.timer = timer
            attempts[path]?.call = call
        }
    }

    func leaveAttempt(_ peripheral: Peripheral, id: Int) {
        let abandoned = lock.withLock { () -> Bool in
            guard attempts[peripheral.path] != nil else { return false }
            attempts[peripheral.path]?.subjects[id] = nil
            return attempts[peripheral.path]?.subjects.isEmpty ?? false
        }
        if abandoned {
            finishAttempt(
                peripheral.path, BluetoothError(.connectionFailed, "the connection attempt was cancelled"),
                disconnect: true)
        }
    }

    func cancelAttempt(_ path: DBusObjectPath, with error: BluetoothError) {
        finishAttempt(path, error, disconnect: false)
    }

    private func connectReplied(_ path: DBusObjectPath) {
        lock.withLock { attempts[path]?.replied = true }
        attemptProgressed(path)
    }

    /// Announces the link when it is up, and completes the attempt when the services are resolved.
    private func attemptProgressed(_ path: DBusObjectPath) {
        let (announce, ready) = lock.withLock { () -> (Bool, Bool) in
            guard var attempt = attempts[path], attempt.linkIsUp else { return (false, false) }
            let announce = !attempt.announced
            attempt.announced = true
            let resolved = tree.properties(of: path, interface: BlueZ.device)?["ServicesResolved"]?.boolean == true
            let startTasks = resolved && !attempt.tasksStarted
            if startTasks { attempt.tasksStarted = true }
            attempts[path] = attempt
            return (announce, startTasks)
        }
        if announce, let peripheral = peripheral(at: path) { connectionEvents.send(.connected(peripheral)) }
        // Resolved: the connection tasks run, then the attempt ends.
        if ready {
            runConnectionTasks(path) { [weak self] failure in
                self?.finishAttempt(path, failure, disconnect: failure != nil)
            }
        }
    }

    /// Ends the attempt for `path`: with its peripheral (`failure` nil) or with the failure.
    func finishAttempt(_ path: DBusObjectPath, _ failure: BluetoothError?, disconnect: Bool) {
        guard let attempt = lock.withLock({ attempts.removeValue(forKey: path) }) else { return }
        attempt.timer?.cancel()
        attempt.tasks?.cancel()
        attempt.call?.cancel()
        if failure == nil { lock.withLock { connectedPaths[path] = attempt.peripheral } }
        publishConnectionLists()
        pauseDiscovery(false)
        if disconnect {
            run(
                connection.call(destination: BlueZ.service, path: path, interface: BlueZ.device, member: "Disconnect"),
                operation: "disconnecting"
            ) { _ in }
        }
        let peripheral = attempt.peripheral
        if let failure {
            connectionEvents.send(.connectionFailed(peripheral, failure))
            for subject in attempt.subjects.values { subject.send(completion: .failure(failure)) }
        } else {
            connectionEvents.send(.ready(peripheral))
            for subject in attempt.subjects.values {
                subject.send(peripheral)
                subject.send(completion: .finished)
            }
        }
    }

    /// bluetoothd or the adapter went (or the central closed, `final`): attempts fail and links end.
    /// A peripheral under a reconnection policy waits, listeners and all, for them to return (not when
    /// `final`).
    func failAttempts(with error: BluetoothError, final: Bool) {
        if final {
            let reconnecting = lock.withLock { Array(reconnections.keys) }
            for path in reconnecting { cancelReconnection(path) }
        }
        let paths = lock.withLock { Array(attempts.keys) }
        for path in paths { finishAttempt(path, error, disconnect: false) }
        let connected = lock.withLock { () -> [(DBusObjectPath, Peripheral)] in
            defer { connectedPaths = [:] }
            return connectedPaths.map { ($0.key, $0.value) }
        }
        publishConnectionLists()
        // The links are lost to this central for the reason everything ends (bluetoothd or the adapter
        // went, the central closed): that is what their listeners hear.
        let reason = DisconnectionReason(name: DisconnectionReason.unknown.name, message: error.message)
        for (path, peripheral) in connected {
            if holdForReconnection(path) {
                connectionEvents.send(.disconnected(peripheral, reason))
            } else {
                linkEnded(path, peripheral, reason: reason, listenersFailWith: error)
            }
        }
    }

    func publishConnectionLists() {
        let (connected, connecting) = lock.withLock {
            (connectedPaths.keys.sorted { $0.description < $1.description }, Array(attempts.keys))
        }
        if connectedPeripherals.value != connected { connectedPeripherals.send(connected) }
        let sortedConnecting = connecting.sorted { $0.description < $1.description }
        if connectingPeripherals.value != sortedConnecting { connectingPeripherals.send(sortedConnecting) }
    }

    /// Follows the devices' links in the tree.
    func connectionTreeEvent(_ event: DBusObjectManagerEvent) {
        switch event {
        case .propertiesChanged(let path, let change) where change.interface == BlueZ.device:
            if change.changed["Connected"]?.boolean == true {
                lock.withLock { attempts[path]?.signalled = true }
                attemptProgressed(path)
            }
            if change.changed["ServicesResolved"]?.boolean == true { attemptProgressed(path) }
            // The link is down at Connected = false; a link whose Connected was never signalled (the
            // BlueZ 5.66 race) shows its end only by ServicesResolved = false.
            let connectedNow = deviceProperties(path)?["Connected"]?.boolean == true
            if change.changed["Connected"]?.boolean == false
                || (change.changed["ServicesResolved"]?.boolean == false && !connectedNow)
            {
                linkDropped(path)
            }
        case .interfacesRemoved(let path, let interfaces) where interfaces.contains(BlueZ.device):
            linkDropped(path, removed: true)
        case .snapshot:
            // bluetoothd (re)started: nothing of before is connected.
            let connected = lock.withLock { () -> [DBusObjectPath] in
                connectedPaths.keys.filter {
                    tree.properties(of: $0, interface: BlueZ.device)?["ServicesResolved"]?.boolean != true
                }
            }
            for path in connected { linkDropped(path) }
        default:
            break
        }
    }

    /// The central disconnects the ready link at `path` itself: its end is ``DisconnectionReason/local``
    /// unless bluetoothd says otherwise (5.66 says nothing).
    func disconnecting(_ path: DBusObjectPath) {
        lock.withLock {
            if connectedPaths[path] != nil, disconnectReasons[path] == nil { disconnectReasons[path] = .local }
        }
    }

    private func linkDropped(_ path: DBusObjectPath, removed: Bool = false) {
        let (attempting, linkUp) = lock.withLock { (attempts[path] != nil, attempts[path]?.linkIsUp ?? false) }
        if attempting {
            if linkUp || removed {
                let reason = lock.withLock { disconnectReasons[path] }
                let failure = BluetoothError(
                    .connectionFailed,
                    removed
                        ? "the peripheral was removed before its services were resolved"
                        : "the link dropped before the services were resolved"
                            + (reason.map { ": \($0.message)" } ?? ""),
                    bluezName: reason?.name, bluezMessage: reason?.message)
                finishAttempt(path, failure, disconnect: false)
            }
            return
        }
        guard let peripheral = lock.withLock({ connectedPaths.removeValue(forKey: path) }) else { return }
        publishConnectionLists()
        linkEnded(path, peripheral)
    }

    /// A ready link ended: listeners end (with `listenersFailWith`, else ``BluetoothError/Kind/notConnected``
    /// and bluetoothd's reason), and the event says why.
    private func linkEnded(
        _ path: DBusObjectPath, _ peripheral: Peripheral, reason given: DisconnectionReason? = nil,
        listenersFailWith error: BluetoothError? = nil
    ) {
        let reported = lock.withLock { disconnectReasons.removeValue(forKey: path) }
        let reason = given ?? reported ?? .unknown
        if error == nil, reconnectAfterDrop(path, peripheral, reason: reason) {
            connectionEvents.send(.disconnected(peripheral, reason))
            return
        }
        failNotifications(
            under: path,
            with: error
                ?? BluetoothError(
                    .notConnected, "the peripheral disconnected: \(reason.message)",
                    bluezName: reason.name == DisconnectionReason.unknown.name ? nil : reason.name,
                    bluezMessage: reason.message))
        connectionEvents.send(.disconnected(peripheral, reason))
    }
}
