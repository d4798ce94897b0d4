import Ripple
import RippleDBus

extension CentralCore {
    // MARK: Requests

    /// A `connect` subscriber joins the attempt for `peripheral` (starting it if there is none).
    ///
    /// - Parameters:
    ///   - peripheral: the peripheral to connect.
    ///   - subscription: the subscriber's operation.
    ///   - timeout: the attempt's time limit, if it starts now.
    ///   - policy: the reconnection policy to put the peripheral under once ready.
    func joinAttempt(
        _ peripheral: Peripheral, _ subscription: OperationSubscription<Peripheral>, timeout: Duration,
        policy: ReconnectPolicy?
    ) {
        guard subscription.isLive else { return }
        let path = peripheral.path
        if confined.value.connections[path] == nil {
            confined.value.connections[path] = ConnectionRecord(address: peripheral.address)
        }
        confined.value.connectSubscribers[subscription.id] = subscription
        let resolved = deviceProperties(path)?["ServicesResolved"]?.boolean == true
        connectionEvent(
            path,
            .connectRequested(subscriber: subscription.id, timeout: timeout, alreadyResolved: resolved, policy: policy))
    }

    /// A `connect` subscriber cancelled.
    ///
    /// - Parameters:
    ///   - path: the peripheral's device path.
    ///   - id: the subscriber's operation.
    func leaveAttempt(_ path: DBusObjectPath, id: Int) {
        guard confined.value.connectSubscribers.removeValue(forKey: id) != nil else { return }
        connectionEvent(path, .subscriberLeft(id))
    }

    /// The user disconnects `peripheral`: the machine ends what is under way, then `Device1.Disconnect()`
    /// goes; `subscription` ends once the machine has taken bluetoothd's answer.
    ///
    /// - Parameters:
    ///   - peripheral: the peripheral to disconnect.
    ///   - subscription: the subscriber's operation.
    func disconnect(_ peripheral: Peripheral, _ subscription: OperationSubscription<Void>) {
        let path = peripheral.path
        if confined.value.connections[path] == nil {
            confined.value.connections[path] = ConnectionRecord(address: peripheral.address)
        }
        connectionEvent(path, .disconnectRequested)
        let box = CancellableBox()
        box.cancellable = connection.call(
            destination: BlueZ.service, path: path, interface: BlueZ.device, member: "Disconnect"
        )
        .sink(
            receiveCompletion: { [self] completion in
                box.cancellable = nil
                guard case .failure(let error) = completion else { return }
                let failure = BluetoothError(error, during: "disconnecting \(peripheral.address)")
                perform { [self] in
                    connectionEvent(path, .disconnectFailed(failure))
                    subscription.finish(.failure(failure))
                }
            },
            receiveValue: { [self] _ in
                perform { [self] in
                    connectionEvent(path, .disconnectAnswered)
                    subscription.receive(())
                    subscription.finish(.finished)
                }
            })
    }

    // MARK: The machine

    /// Feeds `event` to the connection machine of the device at `path` (if it has one) and performs
    /// its actions, then those of the events the actions produce at once.
    ///
    /// - Parameters:
    ///   - path: the device's object path.
    ///   - event: what happened.
    func connectionEvent(_ path: DBusObjectPath, _ event: ConnectionStateMachine.Event) {
        var events = [event]
        while !events.isEmpty {
            let next = events.removeFirst()
            guard var record = confined.value.connections[path] else { return }
            let actions: [ConnectionStateMachine.Action]
            do {
                actions = try record.machine.handle(next)
            } catch {
                self.record(error)
                continue
            }
            confined.value.connections[path] = record
            // The state others read (`isConnected`, the connected lists) changes before anything this step
            // announces or ends: a task woken by a `disconnected` event or a listener's end finds it current.
            let publishes = actions.filter { if case .publish = $0 { true } else { false } }
            let others = actions.filter { if case .publish = $0 { false } else { true } }
            for action in publishes + others { execute(action, at: path, queueing: &events) }
            // With BlueZ 5.66's race the link may show only by `ServicesResolved`, already true when the
            // link came up: no change of it will come.
            if case .linkUp = confined.value.connections[path]?.machine.state,
                deviceProperties(path)?["ServicesResolved"]?.boolean == true
            {
                events.append(.servicesResolved)
            }
        }
    }

    private func execute(
        _ action: ConnectionStateMachine.Action, at path: DBusObjectPath,
        queueing events: inout [ConnectionStateMachine.Event]
    ) {
        guard let record = confined.value.connections[path] else { return }
        let peripheral = handle(path, address: record.address)
        switch action {
        case .announce(let announcement):
            guard let peripheral else { break }
            connectionEvents.send(Self.event(announcement, of: peripheral))
        case .beginAttempt(let timeout):
            confined.value.connections[path]?.attemptTimeout = timeout
            confined.value.connections[path]?.deadline = loop.after(timeout) { [weak self] in
                self?.perform { [weak self] in self?.connectionEvent(path, .deadlinePassed) }
            }
            pauseDiscovery(true)
        case .endAttempt:
            let holdingQueue = record.tasks != nil
            let work = confined.value.connections[path]?.takeAttemptWork() ?? []
            for cancellable in work { cancellable.cancel() }
            if holdingQueue { queueEvent(path, .release(.connectionTasks)) }
            pauseDiscovery(false)
        case .callConnect:
            let call = callConnect(path, address: record.address, timeout: record.attemptTimeout)
            confined.value.connections[path]?.call = call
        case .armRetry(let delay):
            confined.value.connections[path]?.retry = loop.after(delay) { [weak self] in
                self?.perform { [weak self] in self?.connectionEvent(path, .retryTimerFired) }
            }
        case .cancelRetry:
            record.retry?.cancel()
            confined.value.connections[path]?.retry = nil
        case .refreshTree:
            let refresh = refreshTree(of: path)
            confined.value.connections[path]?.refresh = refresh
        case .runTasks:
            if !runConnectionTasks(path) { events.append(.tasksFinished) }
        case .takeLinkDown:
            run(
                connection.call(destination: BlueZ.service, path: path, interface: BlueZ.device, member: "Disconnect"),
                operation: "disconnecting"
            ) { _ in }
        case .succeed(let subscribers):
            for id in subscribers.sorted() {
                guard let subscription = confined.value.connectSubscribers.removeValue(forKey: id) else { continue }
                if let peripheral { subscription.receive(peripheral) }
                subscription.finish(.finished)
            }
        case .fail(let subscribers, let error):
            for id in subscribers.sorted() {
                let subscription = confined.value.connectSubscribers.removeValue(forKey: id)
                subscription?.finish(.failure(error))
            }
        case .suspendListeners:
            suspendNotifications(under: path)
        case .endListeners(let error):
            failNotifications(under: path, with: error)
        case .rearmListeners:
            if let peripheral { rearmNotifications(under: path, peripheral: peripheral) }
        case .armReconnect(let delay):
            confined.value.connections[path]?.reconnect = loop.after(delay) { [weak self] in
                self?.perform { [weak self] in self?.reconnectTimerFired(path) }
            }
        case .cancelReconnect:
            record.reconnect?.cancel()
            confined.value.connections[path]?.reconnect = nil
        case .publish:
            let phase = record.machine.phase
            mirror.withLock { mirror in mirror.phases[path] = phase }
            publishConnectionLists()
        }
    }

    private static func event(_ announcement: ConnectionStateMachine.Announcement, of peripheral: Peripheral)
        -> ConnectionEvent
    {
        switch announcement {
        case .connecting: .connecting(peripheral)
        case .connected: .connected(peripheral)
        case .ready: .ready(peripheral)
        case .failed(let error): .connectionFailed(peripheral, error)
        case .disconnected(let reason): .disconnected(peripheral, reason)
        case .autoConnected: .autoConnected(peripheral)
        }
    }

    /// `Device1.Connect()`, its answer to the machine.
    private func callConnect(_ path: DBusObjectPath, address: BluetoothAddress, timeout: Duration) -> AnyCancellable {
        connection.call(
            destination: BlueZ.service, path: path, interface: BlueZ.device, member: "Connect",
            timeout: timeout + .seconds(1)
        ).sink(
            receiveCompletion: { [weak self] completion in
                guard case .failure(let error) = completion else { return }
                // Connected meanwhile (by another program, or a moment ago): as good as an answer.
                let event: ConnectionStateMachine.Event =
                    error.remoteName == "org.bluez.Error.AlreadyConnected"
                    ? .connectAnswered
                    : .connectFailed(BluetoothError(error, during: "connecting to \(address)"))
                self?.perform { [weak self] in self?.connectionEvent(path, event) }
            },
            receiveValue: { [weak self] _ in
                self?.perform { [weak self] in self?.connectionEvent(path, .connectAnswered) }
            })
    }

    // MARK: Following the tree

    /// Turns changes of the devices in the tree into the machines' events.
    func connectionTreeEvent(_ event: DBusObjectManagerEvent) {
        switch event {
        case .propertiesChanged(let path, let change) where change.interface == BlueZ.device:
            let connected = change.changed["Connected"]?.boolean
            let resolved = change.changed["ServicesResolved"]?.boolean
            if connected == true { connectionEvent(path, .linkUp) }
            if resolved == true { connectionEvent(path, .servicesResolved) }
            // The link is down at Connected = false; a link whose Connected was never signalled (the
            // BlueZ 5.66 race) shows its end only by ServicesResolved = false.
            let connectedNow = deviceProperties(path)?["Connected"]?.boolean == true
            if connected == false || (resolved == false && !connectedNow) { linkDown(path) }
        case .interfacesRemoved(let path, let interfaces) where interfaces.contains(BlueZ.device):
            confined.value.disconnectReasons[path] = nil
            if confined.value.connections[path] != nil {
                connectionEvent(path, .deviceRemoved(canReconnectNow: canReconnect(path)))
            } else {
                failNotifications(under: path, with: ConnectionStateMachine.linkEnded(.unknown))
            }
        case .snapshot:
            // bluetoothd (re)started: nothing of before is connected.
            let paths = confined.value.connections.filter { $0.value.machine.phase == .ready }.map(\.key)
            for path in paths.sorted() where deviceProperties(path)?["ServicesResolved"]?.boolean != true {
                linkDown(path)
            }
        default:
            break
        }
    }

    private func linkDown(_ path: DBusObjectPath) {
        let reason = confined.value.disconnectReasons.removeValue(forKey: path) ?? .unknown
        if confined.value.connections[path] != nil {
            connectionEvent(path, .linkDown(reason, canReconnectNow: canReconnect(path)))
        } else {
            failNotifications(under: path, with: ConnectionStateMachine.linkEnded(reason))
        }
    }

    /// Whether a reconnection of `path` may start now: bluetoothd and a powered adapter are there, and
    /// the peripheral is not lent.
    func canReconnect(_ path: DBusObjectPath) -> Bool {
        operationError() == nil && !confined.value.handedOver.contains(path)
    }

    /// bluetoothd or the adapter went (or the central closed, `final`): every machine hears it.
    func connectionsLostBluetooth(_ error: BluetoothError, final: Bool) {
        for path in confined.value.connections.keys.sorted() {
            connectionEvent(path, .bluetoothLost(error, final: final))
        }
    }

    /// The peripherals waiting under a policy for bluetoothd, the adapter or a hand-over.
    func heldForReconnection() -> Set<DBusObjectPath> {
        Set(confined.value.connections.filter { $0.value.machine.state == .reconnectionHeld }.keys)
    }

    // MARK: Readers on any thread

    /// Whether the peripheral at `path` is connected, as this central sees it (bluetoothd's tree when the
    /// central has not been involved).
    func isConnected(_ path: DBusObjectPath) -> Bool {
        let (phase, connected) = mirror.withLock { mirror in
            (mirror.phases[path], mirror.tree.properties(of: path, interface: BlueZ.device)?["Connected"]?.boolean)
        }
        switch phase ?? .unknown {
        case .linkUp, .runningTasks, .ready: return true
        case .connecting, .down: return false
        case .unknown: return connected ?? false
        }
    }

    /// The handle of the device at `path` that events and lists name: the tree's, else one made from
    /// `address` (the device may have left the tree); nil once the central is gone (its core is stopping).
    ///
    /// - Parameters:
    ///   - path: the device's object path.
    ///   - address: its address, as its connection record keeps it.
    /// - Returns: the handle.
    func handle(_ path: DBusObjectPath, address: BluetoothAddress) -> Peripheral? {
        peripheral(at: path) ?? central.map { Peripheral(central: $0, address: address, path: path) }
    }

    /// Sends the connected and connecting lists when they changed.
    func publishConnectionLists() {
        let connections = confined.value.connections
        let connected = connections.filter { $0.value.machine.phase == .ready }.sorted { $0.key < $1.key }
            .compactMap { handle($0.key, address: $0.value.address) }
        let connecting = connections.filter { $0.value.machine.isAttempting }.sorted { $0.key < $1.key }
            .compactMap { handle($0.key, address: $0.value.address) }
        if connectedPeripherals.value != connected { connectedPeripherals.send(connected) }
        if connectingPeripherals.value != connecting { connectingPeripherals.send(connecting) }
    }
}
