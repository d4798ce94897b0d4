import Ripple
import RippleDBus

/// The central's notification sessions: one bluetoothd session per characteristic — an
/// `AcquireNotify` socket where the characteristic allows it, else `StartNotify` — shared by every
/// listener of it in this process (reference-counted: the last listener to leave ends it).
struct NotificationBook {
    struct Session {
        var listeners: [Int: NotificationListener] = [:]
        /// AcquireNotify or StartNotify answered.
        var started = false
        /// AcquireNotify or StartNotify under way.
        var call: AnyCancellable?
        /// The acquired socket, when notifications come through one (then `Value` changes on the bus
        /// are reads' results, never notifications).
        var socket: NotificationSocket?
        /// Reads of the characteristic under way: bluetoothd signals a read's value as a `Value` change
        /// just before it answers the read, so changes are held until the answer, and the one that is
        /// the read's echo is dropped.
        var readsInFlight = 0
        var held: [[UInt8]] = []
        /// Called once the session is on.
        var onStarted: [@Sendable () -> Void] = []
        /// What the first listener asked for: the characteristic (to find it again after a
        /// reconnection), the transport and the peripheral.
        var reference: CharacteristicReference?
        var transport = NotificationTransport.automatic
        var device: Peripheral?
        /// Started with `StartNotify`: bluetoothd 5.66 keeps such a session when the link ends and enables
        /// it again on the next link, until `StopNotify` (or this client leaves the bus).
        var keptByBluetoothd = false

        /// Stops the session but keeps its listeners (to be re-armed): returns what must be cancelled
        /// and closed outside the lock.
        mutating func suspend() -> (call: AnyCancellable?, socket: NotificationSocket?) {
            defer {
                started = false
                call = nil
                socket = nil
                readsInFlight = 0
                held = []
            }
            return (call, socket)
        }
    }

    var sessions: [DBusObjectPath: Session] = [:]
}

extension CentralCore {
    /// Adds a listener to `characteristic`, starting bluetoothd's session for the first: through an
    /// `AcquireNotify` socket when `transport` and the characteristic allow it, falling back to
    /// `StartNotify` when bluetoothd refuses the socket.
    func addListener(
        _ listener: NotificationListener, id: Int, to characteristic: GATTCharacteristic,
        named reference: CharacteristicReference,
        device: Peripheral, transport: NotificationTransport, onStarted: (@Sendable () -> Void)?
    ) {
        let path = characteristic.path
        let (first, started) = lock.withLock { () -> (Bool, Bool) in
            if notifications.sessions[path]?.listeners.isEmpty ?? true {
                notifications.sessions[path, default: .init()].reference = reference
                notifications.sessions[path]?.transport = transport
                notifications.sessions[path]?.device = device
            }
            notifications.sessions[path, default: .init()].listeners[id] = listener
            if let onStarted { notifications.sessions[path]?.onStarted.append(onStarted) }
            let session = notifications.sessions[path]
            return (session?.call == nil && session?.started == false, session?.started == true)
        }
        if started { startedSession(path) }
        guard first else { return }
        if transport == .automatic, canAcquireNotify(characteristic) {
            acquireNotify(path, device: device)
        } else {
            startNotify(path, device: device)
        }
    }

    /// Whether bluetoothd offers `AcquireNotify` for the characteristic: it has `NotifyAcquired` (only
    /// for characteristics that notify; indications need confirming, which a socket cannot do).
    private func canAcquireNotify(_ characteristic: GATTCharacteristic) -> Bool {
        guard characteristic.flags.contains("notify") else { return false }
        return lock.withLock {
            tree.properties(of: characteristic.path, interface: BlueZ.characteristic)?["NotifyAcquired"] != nil
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

    private func acquireNotify(_ path: DBusObjectPath, device: Peripheral) {
        let call = notifyCall(
            "AcquireNotify", path, arguments: [.stringVariantDictionary([:])],
            "acquiring notifications of \(device.address)")
        let subscription = call.sink(
            receiveCompletion: { [weak self] completion in
                // Refused (another client's StartNotify session, an older bluetoothd, …): the bus path.
                guard let self, case .failure = completion else { return }
                let wanted = lock.withLock { () -> Bool in
                    notifications.sessions[path]?.call = nil
                    return notifications.sessions[path]?.listeners.isEmpty == false
                }
                if wanted { startNotify(path, device: device) } else { sessionUnwanted(path) }
            },
            receiveValue: { [weak self] reply in
                guard let self else { return }
                guard let descriptor = reply.body.first?.unixFD?.take() else {
                    lock.withLock { notifications.sessions[path]?.call = nil }
                    startNotify(path, device: device)
                    return
                }
                let mtu = reply.body.count > 1 ? reply.body[1].uint16.map(Int.init) ?? 23 : 23
                let socket = NotificationSocket(fileDescriptor: descriptor, mtu: mtu, loop: loop)
                socket.start(
                    packets: { [weak self] packets in self?.socketPackets(packets, of: path) },
                    closed: { [weak self] in self?.perform { [weak self] in self?.socketClosed(path, device: device) } }
                )
                sessionStarted(path, socket: socket)
            })
        lock.withLock { notifications.sessions[path]?.call = subscription }
    }

    private func startNotify(_ path: DBusObjectPath, device: Peripheral) {
        let call = notifyCall("StartNotify", path, "subscribing to notifications of \(device.address)")
        let subscription = call.sink(
            receiveCompletion: { [weak self] completion in
                guard let self, case .failure(let failure) = completion else { return }
                // bluetoothd 5.66 keeps this client's session across the link's end and enables it again
                // on the next link; until it has, it answers "In Progress": the session is there.
                if failure.bluezName == "org.bluez.Error.InProgress" {
                    sessionStarted(path, socket: nil)
                    return
                }
                let listeners = lock.withLock { () -> [NotificationListener] in
                    defer { notifications.sessions[path] = nil }
                    return notifications.sessions[path].map { Array($0.listeners.values) } ?? []
                }
                for listener in listeners { listener.finish(.failure(failure)) }
            },
            receiveValue: { [weak self] _ in self?.sessionStarted(path, socket: nil) })
        lock.withLock { notifications.sessions[path]?.call = subscription }
    }

    /// bluetoothd answered: the session is on, unless every listener left meanwhile.
    private func sessionStarted(_ path: DBusObjectPath, socket: NotificationSocket?) {
        let wanted = lock.withLock { () -> Bool? in
            guard notifications.sessions[path] != nil else { return nil }
            notifications.sessions[path]?.started = true
            notifications.sessions[path]?.call = nil
            notifications.sessions[path]?.socket = socket
            if socket == nil { notifications.sessions[path]?.keptByBluetoothd = true }
            return notifications.sessions[path]?.listeners.isEmpty == false
        }
        switch wanted {
        case true?: startedSession(path)
        case false?: sessionUnwanted(path)
        case nil: socket?.close()  // the session ended meanwhile (the link dropped, bluetoothd left)
        }
    }

    /// Tells those waiting that the session is on.
    private func startedSession(_ path: DBusObjectPath) {
        let waiting = lock.withLock { () -> [@Sendable () -> Void] in
            defer { notifications.sessions[path]?.onStarted = [] }
            return notifications.sessions[path]?.onStarted ?? []
        }
        for action in waiting { action() }
    }

    /// Removes a listener; the last one ends bluetoothd's session (once its start is answered).
    func removeListener(_ id: Int, from path: DBusObjectPath) {
        let last = lock.withLock { () -> Bool in
            guard notifications.sessions[path]?.listeners.removeValue(forKey: id) != nil else { return false }
            return notifications.sessions[path]?.listeners.isEmpty == true && notifications.sessions[path]?.call == nil
        }
        if last { sessionUnwanted(path) }
    }

    /// Ends the session at `path` if no listener wants it: closes its socket or stops bluetoothd's
    /// notifications; the session's record stays while reads are under way.
    private func sessionUnwanted(_ path: DBusObjectPath) {
        let (started, socket) = lock.withLock { () -> (Bool, NotificationSocket?) in
            guard let session = notifications.sessions[path], session.listeners.isEmpty, session.call == nil else {
                return (false, nil)
            }
            if session.readsInFlight == 0 {
                notifications.sessions[path] = nil
            } else {
                notifications.sessions[path]?.started = false
                notifications.sessions[path]?.socket = nil
                notifications.sessions[path]?.onStarted = []
            }
            return (session.started || session.keptByBluetoothd, session.socket)
        }
        if let socket {
            socket.close()
        } else if started {
            stopNotify(path, queued: true)
        }
    }

    /// Packets from an acquired socket go to the characteristic's listeners.
    private func socketPackets(_ packets: [[UInt8]], of path: DBusObjectPath) {
        let listeners = lock.withLock { notifications.sessions[path].map { Array($0.listeners.values) } ?? [] }
        for packet in packets { for listener in listeners { listener.offer(packet) } }
    }

    /// bluetoothd closed the socket: the link dropped, the database changed, or the acquisition ended.
    /// The session waits, listeners and all: the link's end (if that is why) decides whether they end or
    /// wait for a reconnection; while the device is connected the session starts again.
    private func socketClosed(_ path: DBusObjectPath, device: Peripheral) {
        let socket = lock.withLock { () -> NotificationSocket? in
            guard let socket = notifications.sessions[path]?.socket else { return nil }
            notifications.sessions[path]?.socket = nil
            notifications.sessions[path]?.started = false
            return socket
        }
        guard let socket else { return }
        socket.close()
        let lent = confined.value.handedOver.contains(path.devicePath)
        if !lent, gattError(device) == nil {
            rearmNotifications(under: path.devicePath, peripheral: device, waitForMissing: true)
        }
    }

    /// A characteristic that goes (a database change, or the link's end) leaves its listeners waiting; one
    /// that comes on a connected device re-arms them (the link's end, if that was why, decides the rest).
    /// (`Value` changes come by ``characteristicValueChanged(_:to:)``, not through the tree.)
    func notificationTreeEvent(_ event: DBusObjectManagerEvent) {
        switch event {
        case .interfacesRemoved(let path, let interfaces) where interfaces.contains(BlueZ.characteristic):
            suspendSession(path)
            return
        case .interfacesAdded(let path, let interfaces) where interfaces[BlueZ.characteristic] != nil:
            let device = path.devicePath
            guard !confined.value.handedOver.contains(device), let peripheral = peripheral(at: device),
                gattError(peripheral) == nil
            else { return }
            rearmNotifications(under: device, peripheral: peripheral, waitForMissing: true)
            return
        default:
            break
        }
    }

    /// A `Value` change of the characteristic at `path` goes to its listeners (held while a read is under
    /// way); over a socket, such changes are reads' results and go nowhere.
    func characteristicValueChanged(_ path: DBusObjectPath, to value: [UInt8]) {
        let listeners = lock.withLock { () -> [NotificationListener] in
            guard var session = notifications.sessions[path], session.socket == nil else { return [] }
            if session.readsInFlight > 0 {
                session.held.append(value)
                notifications.sessions[path] = session
                return []
            }
            return Array(session.listeners.values)
        }
        for listener in listeners { listener.offer(value) }
    }

    /// A read of the characteristic at `path` starts.
    func readStarted(_ path: DBusObjectPath) {
        lock.withLock { notifications.sessions[path, default: .init()].readsInFlight += 1 }
    }

    /// A read ended (with its value when it succeeded): the held changes go to the listeners, without
    /// the last one equal to the value read (the read's own echo).
    func readEnded(_ path: DBusObjectPath, value: [UInt8]?) {
        let (listeners, held) = lock.withLock { () -> ([NotificationListener], [[UInt8]]) in
            guard var session = notifications.sessions[path] else { return ([], []) }
            session.readsInFlight -= 1
            var held = session.held
            if let value, let echo = held.lastIndex(of: value) { held.remove(at: echo) }
            session.held = []
            if session.readsInFlight > 0 {
                session.held = held
                notifications.sessions[path] = session
                return ([], [])
            }
            notifications.sessions[path] =
                session.listeners.isEmpty && session.call == nil && !session.started ? nil : session
            return (Array(session.listeners.values), held)
        }
        for value in held { for listener in listeners { listener.offer(value) } }
    }

    /// bluetoothd or the adapter went: every listener ends with `error`, except those of the peripherals
    /// in `held` (waiting to be reconnected).
    func failNotifications(with error: BluetoothError, sparing held: Set<DBusObjectPath>) {
        let ended = lock.withLock { () -> [DBusObjectPath: NotificationBook.Session] in
            let ending = notifications.sessions.filter { !held.contains($0.key.devicePath) }
            for path in ending.keys { notifications.sessions[path] = nil }
            return ending
        }
        end(ended, with: error)
    }

    /// The link of the device at `device` ended: its listeners end with `error`.
    func failNotifications(under device: DBusObjectPath, with error: BluetoothError) {
        let prefix = device.description + "/"
        let ended = lock.withLock { () -> [DBusObjectPath: NotificationBook.Session] in
            let ending = notifications.sessions.filter { $0.key.description.hasPrefix(prefix) }
            for path in ending.keys { notifications.sessions[path] = nil }
            return ending
        }
        end(ended, with: error)
    }

    /// The link of the device at `device` dropped and will be reconnected: its sessions stop (sockets
    /// closed, calls dropped) but keep their listeners, to be re-armed by ``rearmNotifications(under:peripheral:waitForMissing:)``;
    /// sessions without listeners go.
    func suspendNotifications(under device: DBusObjectPath) {
        let prefix = device.description + "/"
        let paths = lock.withLock { notifications.sessions.keys.filter { $0.description.hasPrefix(prefix) } }
        for path in paths { suspendSession(path) }
    }

    /// The characteristic at `path` went (or its link): its session stops but keeps its listeners; a
    /// session without listeners goes.
    private func suspendSession(_ path: DBusObjectPath) {
        let stopped = lock.withLock { () -> (call: AnyCancellable?, socket: NotificationSocket?)? in
            guard var session = notifications.sessions[path] else { return nil }
            let stopped = session.suspend()
            notifications.sessions[path] = session.listeners.isEmpty ? nil : session
            return stopped
        }
        stopped?.call?.cancel()
        stopped?.socket?.close()
    }

    /// The device at `device` is ready again: each session that still has listeners starts again, on
    /// the characteristic found anew by its reference (its object path may have changed). A session
    /// whose characteristic is gone ends its listeners with ``BluetoothError/Kind/attributeNotFound``.
    /// With `waitForMissing`, a session whose characteristic is not (yet) there keeps waiting instead of
    /// ending (objects come one by one while bluetoothd re-discovers a changed database).
    func rearmNotifications(under device: DBusObjectPath, peripheral: Peripheral, waitForMissing: Bool = false) {
        let prefix = device.description + "/"
        let waiting = lock.withLock { () -> [(DBusObjectPath, NotificationBook.Session)] in
            notifications.sessions.filter {
                $0.key.description.hasPrefix(prefix) && !$0.value.listeners.isEmpty && !$0.value.started
                    && $0.value.call == nil
            }.map { ($0.key, $0.value) }
        }
        for (path, session) in waiting {
            guard let reference = session.reference,
                case .success(let found) = characteristic(reference, of: peripheral)
            else {
                if waitForMissing { continue }
                let gone = lock.withLock { notifications.sessions.removeValue(forKey: path) }
                let error = BluetoothError(
                    .attributeNotFound,
                    "\(peripheral.address) no longer has \(session.reference.map { "\($0)" } ?? "the characteristic")")
                if let gone { end([path: gone], with: error) }
                continue
            }
            lock.withLock {
                if found.path != path, let moved = notifications.sessions.removeValue(forKey: path) {
                    notifications.sessions[found.path] = moved
                }
            }
            if session.transport == .automatic, canAcquireNotify(found) {
                acquireNotify(found.path, device: peripheral)
            } else {
                startNotify(found.path, device: peripheral)
            }
        }
    }

    /// Ends sessions that are no longer in the book: their calls, sockets and listeners.
    private func end(_ sessions: [DBusObjectPath: NotificationBook.Session], with error: BluetoothError) {
        for (path, session) in sessions {
            session.call?.cancel()
            session.socket?.close()
            // bluetoothd 5.66 keeps a StartNotify session across the link's end, and would have the
            // peripheral notify again on every later link, for no one.
            if session.keptByBluetoothd { stopNotify(path, queued: false) }
            for listener in session.listeners.values { listener.finish(.failure(error)) }
        }
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
}
