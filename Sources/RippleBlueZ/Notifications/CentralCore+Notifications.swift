import Ripple
import RippleDBus

extension CentralCore {
    // MARK: Listeners

    /// A listener subscribed: it joins the session of its characteristic, waiting for the characteristic
    /// (at most ``attributeTimeout``) when bluetoothd has not exported it yet.
    ///
    /// - Parameters:
    ///   - listener: the subscriber's end.
    ///   - id: the listener's identifier.
    ///   - reference: the characteristic it listens to.
    ///   - peripheral: the peripheral.
    ///   - transport: the transport it asks for (the session's first listener chooses).
    ///   - onStarted: called once the session is on.
    func attachListener(
        _ listener: NotificationListener, id: Int, to reference: CharacteristicReference, of peripheral: Peripheral,
        transport: NotificationTransport, onStarted: (@Sendable () -> Void)?
    ) {
        // Cancelled before it got here: its end found nothing to remove.
        guard listener.isActive else { return }
        switch characteristic(reference, of: peripheral) {
        case .success(let found):
            join(
                listener, id: id, found, reference: reference, peripheral: peripheral, transport: transport,
                onStarted: onStarted)
        case .failure(let error) where error.kind == .attributeNotFound:
            let wait = attributeTimeout
            var pending = PendingListener(
                listener: listener, reference: reference, peripheral: peripheral, transport: transport,
                onStarted: onStarted)
            pending.timer = loop.after(wait) { [weak self] in
                let failure = BluetoothError(
                    error.kind, error.message + " (waited \(wait) for bluetoothd to export it)",
                    bluezName: error.bluezName, bluezMessage: error.bluezMessage)
                self?.perform { [weak self] in
                    let pending = self?.confined.value.pendingListeners.removeValue(forKey: id)
                    pending?.listener.finish(.failure(failure))
                }
            }
            confined.value.pendingListeners[id] = pending
        case .failure(let error):
            listener.finish(.failure(error))
        }
    }

    /// Puts `listener` in the session of `found` (opening it for the first listener).
    private func join(
        _ listener: NotificationListener, id: Int, _ found: GATTCharacteristic, reference: CharacteristicReference,
        peripheral: Peripheral, transport: NotificationTransport, onStarted: (@Sendable () -> Void)?
    ) {
        guard found.canNotify else {
            listener.finish(
                .failure(
                    BluetoothError(
                        .notPermitted, "\(reference) of \(peripheral.address) neither notifies nor indicates")))
            return
        }
        let path = found.path
        var record =
            confined.value.sessions[path]
            ?? NotificationSessionRecord(reference: reference, transport: transport, device: peripheral)
        if record.listeners.isEmpty, record.machine.state == .idle || record.machine.state == .releasing {
            // A record kept for reads alone: the first listener chooses.
            record.reference = reference
            record.transport = transport
            record.device = peripheral
        }
        record.listeners[id] = listener
        if let onStarted { record.onStarted.append(onStarted) }
        confined.value.sessions[path] = record
        let canAcquire = record.transport == .automatic && canAcquireNotify(found)
        sessionEvent(path, .listenerAdded(id, canAcquire: canAcquire))
    }

    /// A listener left (cancelled or failed): the last one ends its session.
    ///
    /// - Parameter id: the listener's identifier.
    func removeListener(_ id: Int) {
        if let pending = confined.value.pendingListeners.removeValue(forKey: id) {
            pending.timer?.cancel()
            return
        }
        guard let path = confined.value.sessions.first(where: { $0.value.listeners[id] != nil })?.key else { return }
        confined.value.sessions[path]?.listeners[id] = nil
        sessionEvent(path, .listenerRemoved(id))
        startAfterRelease(path)
    }

    /// Whether bluetoothd offers `AcquireNotify` for the characteristic: it has `NotifyAcquired` (only
    /// for characteristics that notify; indications need confirming, which a socket cannot do).
    private func canAcquireNotify(_ characteristic: GATTCharacteristic) -> Bool {
        guard characteristic.flags.contains("notify") else { return false }
        return mirror.withLock { mirror in
            mirror.tree.properties(of: characteristic.path, interface: BlueZ.characteristic)?["NotifyAcquired"] != nil
        }
    }

    // MARK: The machines

    /// Feeds `event` to the session of the characteristic at `path` (if it has one) and performs the
    /// actions, then those of the events they produce at once.
    ///
    /// - Parameters:
    ///   - path: the characteristic's object path.
    ///   - event: what happened.
    func sessionEvent(_ path: DBusObjectPath, _ event: NotificationSessionStateMachine.Event) {
        var events = [event]
        while !events.isEmpty {
            let next = events.removeFirst()
            guard var record = confined.value.sessions[path] else { return }
            let actions: [NotificationSessionStateMachine.Action]
            do {
                actions = try record.machine.handle(next)
            } catch {
                self.record(error)
                continue
            }
            confined.value.sessions[path] = record
            for action in actions { execute(action, at: path, queueing: &events) }
        }
    }

    private func execute(
        _ action: NotificationSessionStateMachine.Action, at path: DBusObjectPath,
        queueing events: inout [NotificationSessionStateMachine.Event]
    ) {
        guard let record = confined.value.sessions[path] else { return }
        switch action {
        case .acquireNotify:
            // Made before it is stored: subscribing runs the queue, which reads the confined state.
            let call = acquireNotify(path, device: record.device)
            confined.value.sessions[path]?.call = call
        case .startNotify:
            let call = startNotify(path, device: record.device)
            confined.value.sessions[path]?.call = call
        case .cancelCall:
            record.call?.cancel()
            confined.value.sessions[path]?.call = nil
        case .closeSocket:
            record.socket?.close()
            confined.value.sessions[path]?.socket = nil
        case .stopNotify(let queued):
            stopNotify(path, queued: queued)
        case .started:
            confined.value.sessions[path]?.onStarted = []
            for action in record.onStarted { action() }
        case .deliver(let values):
            for value in values { for listener in record.listeners.values { listener.offer(value) } }
        case .fail(let ids, let error):
            for id in ids {
                let listener = confined.value.sessions[path]?.listeners.removeValue(forKey: id)
                listener?.finish(.failure(error))
            }
        case .forget:
            record.attributeTimer?.cancel()
            confined.value.sessions[path] = nil
        }
    }

    /// A notification method of the characteristic at `path` (`AcquireNotify`, `StartNotify`, `StopNotify`),
    /// in its turn in the device's operation queue.
    private func notifyCall(_ member: String, _ path: DBusObjectPath, arguments: [DBusValue] = [], _ operation: String)
        -> AnyPublisher<DBusMessage, BluetoothError>
    {
        let connection = self.connection
        return queued(on: path.devicePath, operation, timeout: .seconds(30)) {
            .success(
                connection.call(
                    destination: BlueZ.service, path: path, interface: BlueZ.characteristic, member: member,
                    arguments: arguments
                )
                .mapError { BluetoothError($0, during: operation) }
                .eraseToAnyPublisher())
        }
    }

    private func acquireNotify(_ path: DBusObjectPath, device: Peripheral) -> AnyCancellable {
        notifyCall(
            "AcquireNotify", path, arguments: [.stringVariantDictionary([:])],
            "acquiring notifications of \(device.address)"
        ).sink(
            receiveCompletion: { [weak self] completion in
                guard case .failure = completion else { return }
                self?.perform { [weak self] in self?.sessionEvent(path, .acquireFailed) }
            },
            receiveValue: { [weak self] reply in
                let descriptor = reply.body.first?.unixFD?.take()
                let mtu = reply.body.count > 1 ? reply.body[1].uint16.map(Int.init) ?? 23 : 23
                self?.perform { [weak self] in self?.acquired(path, descriptor: descriptor, mtu: mtu) }
            })
    }

    /// `AcquireNotify` answered: the socket starts, or the bus path is taken when there is none.
    private func acquired(_ path: DBusObjectPath, descriptor: Int32?, mtu: Int) {
        guard let descriptor else {
            sessionEvent(path, .acquireFailed)
            return
        }
        let socket = NotificationSocket(fileDescriptor: descriptor, mtu: mtu, loop: loop)
        guard confined.value.sessions[path]?.machine.state == .acquiring else {
            socket.close()
            return
        }
        socket.start(
            packets: { [work] packets in work.packetsArrived(packets, of: path) },
            closed: { [weak self] in self?.perform { [weak self] in self?.socketClosed(path) } })
        confined.value.sessions[path]?.socket = socket
        sessionEvent(path, .acquired)
        startAfterRelease(path)
    }

    private func startNotify(_ path: DBusObjectPath, device: Peripheral) -> AnyCancellable {
        notifyCall("StartNotify", path, "subscribing to notifications of \(device.address)").sink(
            receiveCompletion: { [weak self] completion in
                guard case .failure(let failure) = completion else { return }
                // bluetoothd 5.66 keeps this client's session across the link's end and enables it again
                // on the next link; until it has, it answers "In Progress": the session is there.
                let event: NotificationSessionStateMachine.Event =
                    failure.bluezName == "org.bluez.Error.InProgress" ? .startAnswered : .startFailed(failure)
                self?.perform { [weak self] in self?.sessionEvent(path, event) }
            },
            receiveValue: { [weak self] _ in
                self?.perform { [weak self] in self?.sessionEvent(path, .startAnswered) }
            })
    }

    /// Ends bluetoothd's `StartNotify` session at `path`, best effort (the object, the link or bluetoothd
    /// may be gone): in the device's GATT queue (`queued`), or at once when the link has ended.
    private func stopNotify(_ path: DBusObjectPath, queued: Bool) {
        let stopping =
            queued
            ? notifyCall("StopNotify", path, "stopping notifications")
            : connection.call(
                destination: BlueZ.service, path: path, interface: BlueZ.characteristic, member: "StopNotify"
            )
            .mapError { BluetoothError($0, during: "stopping notifications") }.eraseToAnyPublisher()
        let box = CancellableBox()
        box.cancellable = stopping.sink(receiveCompletion: { _ in box.cancellable = nil }, receiveValue: { _ in })
    }

    /// bluetoothd closed the socket: the link dropped, the database changed, or the acquisition ended.
    /// The session waits, listeners and all: the link's end (if that is why) decides whether they end or
    /// wait for a reconnection; while the device is usable the session starts again.
    private func socketClosed(_ path: DBusObjectPath) {
        guard let record = confined.value.sessions[path] else { return }
        sessionEvent(path, .socketClosed)
        let device = record.device
        if !confined.value.handedOver.contains(device.path), gattError(device) == nil {
            rearmNotifications(under: device.path, peripheral: device)
        }
    }

    // MARK: Values

    /// A `Value` change of the characteristic at `path` that the work's value route did not take (see
    /// ``CentralWork/valueChanged(_:_:)``, the hot path of notifications over the bus): to its listeners,
    /// held while a read is under way, or nowhere (over a socket, such changes are reads' results). No
    /// work is allocated when nothing else runs.
    ///
    /// - Parameters:
    ///   - path: the characteristic's object path.
    ///   - value: its new value.
    func characteristicValueChanged(_ path: DBusObjectPath, to value: [UInt8]) {
        guard loop.isInLoopThread, !work.isBusy else {
            perform { [self] in valueChanged(path, value) }
            return
        }
        work.begin()
        valueChanged(path, value)
        work.finish()
    }

    private func valueChanged(_ path: DBusObjectPath, _ value: [UInt8]) {
        if let listeners = confined.value.valueListeners(for: path) {
            for listener in listeners { listener.offer(value) }
            return
        }
        // Held for a read's answer (the machine keeps it) or dropped; nothing without a session.
        _ = confined.value.sessions[path]?.machine.route(value)
    }

    /// Packets from an acquired socket that the work's socket route did not take (see
    /// ``CentralWork/packetsArrived(_:of:)``, the hot path of notifications over a socket): to the
    /// characteristic's listeners, now when nothing else runs, else a copy after the work under way.
    ///
    /// - Parameters:
    ///   - packets: the packets, valid during this call only.
    ///   - path: the characteristic's object path.
    func socketPackets(_ packets: ReceivedPackets, of path: DBusObjectPath) {
        guard loop.isInLoopThread, !work.isBusy else {
            let copies = Array(packets)
            perform { [self] in deliverPackets(copies, of: path) }
            return
        }
        work.begin()
        deliverPackets(packets, of: path)
        work.finish()
    }

    private func deliverPackets(_ packets: some Sequence<[UInt8]>, of path: DBusObjectPath) {
        guard let listeners = confined.value.socketListeners(for: path) else { return }
        for packet in packets { for listener in listeners { listener.offer(packet) } }
    }

    /// A read of the characteristic at `path` starts: `Value` changes wait for its answer.
    ///
    /// - Parameters:
    ///   - path: the characteristic's object path.
    ///   - reference: how the read named it.
    ///   - peripheral: its peripheral.
    func readStarted(_ path: DBusObjectPath, reference: CharacteristicReference, of peripheral: Peripheral) {
        if confined.value.sessions[path] == nil {
            confined.value.sessions[path] = NotificationSessionRecord(
                reference: reference, transport: .automatic, device: peripheral)
        }
        sessionEvent(path, .readStarted)
    }

    /// A read ended (with its value when it succeeded): the held changes go to the listeners, without
    /// the last one equal to the value read (the read's own echo).
    ///
    /// - Parameters:
    ///   - path: the characteristic's object path.
    ///   - value: the value read, or nil when the read failed or was cancelled.
    func readEnded(_ path: DBusObjectPath, value: [UInt8]?) {
        sessionEvent(path, .readEnded(value))
    }

    // MARK: Links and trees

    /// The sessions of the characteristics below `device`.
    private func sessionPaths(under device: DBusObjectPath) -> [DBusObjectPath] {
        let prefix = device.description + "/"
        return confined.value.sessions.keys.filter { $0.description.hasPrefix(prefix) }.sorted()
    }

    /// bluetoothd or the adapter went: every listener ends with `error`, except those of the peripherals
    /// in `held` (waiting to be reconnected).
    ///
    /// - Parameters:
    ///   - error: what the listeners fail with.
    ///   - held: the devices whose listeners wait.
    func failNotifications(with error: BluetoothError, sparing held: Set<DBusObjectPath>) {
        for path in confined.value.sessions.keys.sorted() where !held.contains(path.devicePath) {
            sessionEvent(path, .ended(error, linkUp: false))
        }
        let pending = confined.value.pendingListeners.filter { !held.contains($0.value.peripheral.path) }
        for (id, waiting) in pending.sorted(by: { $0.key < $1.key }) {
            confined.value.pendingListeners[id] = nil
            waiting.timer?.cancel()
            waiting.listener.finish(.failure(error))
        }
    }

    /// The link of the device at `device` ended (or its policy gave up): its listeners end with `error`.
    ///
    /// - Parameters:
    ///   - device: the device's object path.
    ///   - error: what the listeners fail with.
    func failNotifications(under device: DBusObjectPath, with error: BluetoothError) {
        for path in sessionPaths(under: device) { sessionEvent(path, .ended(error, linkUp: false)) }
        let pending = confined.value.pendingListeners.filter { $0.value.peripheral.path == device }
        for (id, waiting) in pending.sorted(by: { $0.key < $1.key }) {
            confined.value.pendingListeners[id] = nil
            waiting.timer?.cancel()
            waiting.listener.finish(.failure(error))
        }
    }

    /// The link of the device at `device` dropped and will be reconnected (or the peripheral is lent):
    /// its sessions stop but keep their listeners, to be re-armed.
    ///
    /// - Parameter device: the device's object path.
    func suspendNotifications(under device: DBusObjectPath) {
        for path in sessionPaths(under: device) { sessionEvent(path, .suspended) }
    }

    /// The device at `device` is usable (again): each session that has listeners and no session at
    /// bluetoothd starts again, on the characteristic found anew by its reference (its object path may
    /// have changed). A characteristic not exported (yet) is waited for, at most ``attributeTimeout``;
    /// then its listeners end with ``BluetoothError/Kind/attributeNotFound``.
    ///
    /// - Parameters:
    ///   - device: the device's object path.
    ///   - peripheral: the peripheral.
    func rearmNotifications(under device: DBusObjectPath, peripheral: Peripheral) {
        for path in sessionPaths(under: device) {
            guard let record = confined.value.sessions[path], !record.listeners.isEmpty,
                record.machine.state == .idle || record.machine.state == .kept
            else { continue }
            switch characteristic(record.reference, of: peripheral) {
            case .success(let found):
                confined.value.sessions[path]?.attributeTimer?.cancel()
                confined.value.sessions[path]?.attributeTimer = nil
                let target = move(path, to: found.path)
                let canAcquire = record.transport == .automatic && canAcquireNotify(found)
                sessionEvent(target, .rearm(canAcquire: canAcquire))
            case .failure(let error) where error.kind == .attributeNotFound:
                guard record.attributeTimer == nil else { continue }
                let wait = attributeTimeout
                let failure = BluetoothError(
                    .attributeNotFound,
                    "\(peripheral.address) no longer has \(record.reference) (waited \(wait) for bluetoothd to export it)"
                )
                confined.value.sessions[path]?.attributeTimer = loop.after(wait) { [weak self] in
                    self?.perform { [weak self] in self?.sessionEvent(path, .ended(failure, linkUp: true)) }
                }
            case .failure:
                continue
            }
        }
        for (id, pending) in confined.value.pendingListeners.sorted(by: { $0.key < $1.key })
        where pending.peripheral.path == device {
            guard case .success(let found) = characteristic(pending.reference, of: peripheral) else { continue }
            confined.value.pendingListeners[id] = nil
            pending.timer?.cancel()
            join(
                pending.listener, id: id, found, reference: pending.reference, peripheral: pending.peripheral,
                transport: pending.transport, onStarted: pending.onStarted)
        }
    }

    /// Moves the session at `path` to `target` (its characteristic's new path), joining a session there.
    private func move(_ path: DBusObjectPath, to target: DBusObjectPath) -> DBusObjectPath {
        guard target != path, let record = confined.value.sessions.removeValue(forKey: path) else { return path }
        guard var existing = confined.value.sessions[target] else {
            confined.value.sessions[target] = record
            return target
        }
        // A listener joined at the new path meanwhile: the old session's listeners join it.
        record.call?.cancel()
        record.socket?.close()
        record.attributeTimer?.cancel()
        existing.onStarted += record.onStarted
        for (id, listener) in record.listeners { existing.listeners[id] = listener }
        confined.value.sessions[target] = existing
        for id in record.listeners.keys.sorted() { sessionEvent(target, .listenerAdded(id, canAcquire: false)) }
        return target
    }

    /// A characteristic that goes (a database change, or the link's end) leaves its listeners waiting; one
    /// that comes on a usable device re-arms them, and lets listeners waiting for it join.
    func notificationTreeEvent(_ event: DBusObjectManagerEvent) {
        switch event {
        case .interfacesRemoved(let path, let interfaces) where interfaces.contains(BlueZ.characteristic):
            sessionEvent(path, .suspended)
        case .interfacesAdded(let path, let interfaces) where interfaces[BlueZ.characteristic] != nil:
            let device = path.devicePath
            guard !confined.value.handedOver.contains(device), let peripheral = peripheral(at: device),
                gattError(peripheral) == nil
            else { return }
            rearmNotifications(under: device, peripheral: peripheral)
        case .propertiesChanged(let path, let change)
        where change.interface == BlueZ.characteristic && change.changed["NotifyAcquired"] != nil:
            startAfterRelease(path)
        default:
            break
        }
    }

    /// A session waiting for bluetoothd to let go of the socket this process closed (`releasing`) goes on
    /// once bluetoothd's `NotifyAcquired` is false: from its signal, or at once when the tree says so
    /// already (bluetoothd closed the socket itself first). bluetoothd sets `NotifyAcquired` before it
    /// answers `AcquireNotify`, so a socket this process holds is never taken for released.
    ///
    /// - Parameter path: the characteristic's object path.
    private func startAfterRelease(_ path: DBusObjectPath) {
        guard let record = confined.value.sessions[path], record.machine.state == .releasing else { return }
        let acquired = mirror.withLock { mirror in
            mirror.tree.properties(of: path, interface: BlueZ.characteristic)?["NotifyAcquired"]?.boolean
        }
        guard acquired == false else { return }
        let found = try? characteristic(record.reference, of: record.device).get()
        let canAcquire = record.transport == .automatic && (found.map(canAcquireNotify) ?? false)
        sessionEvent(path, .notifyReleased(canAcquire: canAcquire))
    }
}

/// Where the `Value` changes (or the socket's packets) of one characteristic go: its session's listeners,
/// as they were when the route was made (any change of a session drops the route).
///
/// A class: the hot path takes it out of ``CentralWork`` with one retain (a struct would retain the path
/// and the array each).
final class ValueRoute: Sendable {
    /// The characteristic's object path.
    let path: DBusObjectPath
    /// Its session's listeners.
    let listeners: [NotificationListener]

    /// The route of `path`'s changes to `listeners`.
    ///
    /// - Parameters:
    ///   - path: the characteristic's object path.
    ///   - listeners: its session's listeners.
    init(path: DBusObjectPath, listeners: [NotificationListener]) {
        self.path = path
        self.listeners = listeners
    }
}

extension CentralCore.Confined {
    /// The listeners a `Value` change of the characteristic at `path` goes to straight away, or nil when
    /// its session holds such changes (a read is under way), drops them, or there is no session.
    ///
    /// The hot path of notifications over the bus: a flood comes from one characteristic at a time, so
    /// the answer for the last path is kept as the work's route until a session changes, and a change from
    /// the same object (the same path string, which the connection's fast path reuses) costs one
    /// comparison in ``CentralWork/valueChanged(_:_:)`` instead of a hashed look-up and a copy of the
    /// session's record.
    ///
    /// - Parameter path: the characteristic's object path.
    /// - Returns: its listeners, when values go to them now.
    mutating func valueListeners(for path: DBusObjectPath) -> [NotificationListener]? {
        if let route = work.route, route.path == path { return route.listeners }
        guard let record = sessions[path], record.machine.deliversValues else { return nil }
        let listeners = Array(record.listeners.values)
        work.route = ValueRoute(path: path, listeners: listeners)
        return listeners
    }

    /// The listeners of the characteristic at `path` that the packets of its acquired socket go to, or
    /// nil when it has no session.
    ///
    /// Kept as the work's socket route until a session changes (as ``valueListeners(for:)`` does), so
    /// that the next packets of the same socket (the same path string) cost one comparison in
    /// ``CentralWork/packetsArrived(_:of:)`` instead of a hashed look-up and a copy of the session's
    /// record.
    ///
    /// - Parameter path: the characteristic's object path.
    /// - Returns: its listeners.
    mutating func socketListeners(for path: DBusObjectPath) -> [NotificationListener]? {
        if let route = work.socketRoute, route.path == path { return route.listeners }
        guard let record = sessions[path] else { return nil }
        let listeners = Array(record.listeners.values)
        work.socketRoute = ValueRoute(path: path, listeners: listeners)
        return listeners
    }
}
