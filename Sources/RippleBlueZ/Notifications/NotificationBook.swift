import Ripple
import RippleDBus

/// The central's notification sessions: one BlueZ `StartNotify` session per characteristic, shared by
/// every listener of it in this process (reference-counted: the last listener to leave stops it).
struct NotificationBook {
    struct Session {
        var listeners: [Int: NotificationListener] = [:]
        /// StartNotify answered.
        var started = false
        /// StartNotify or StopNotify under way.
        var call: AnyCancellable?
        /// Reads of the characteristic under way: bluetoothd signals a read's value as a `Value` change
        /// just before it answers the read, so changes are held until the answer, and the one that is
        /// the read's echo is dropped.
        var readsInFlight = 0
        var held: [[UInt8]] = []
        /// Called once the session is on.
        var onStarted: [@Sendable () -> Void] = []
    }

    var sessions: [DBusObjectPath: Session] = [:]
}

extension CentralCore {
    /// Adds a listener to the characteristic at `path`, starting bluetoothd's session for the first.
    func addListener(
        _ listener: NotificationListener, to path: DBusObjectPath, device: Peripheral, onStarted: (@Sendable () -> Void)?
    ) {
        let (first, started) = lock.withLock { () -> (Bool, Bool) in
            notifications.sessions[path, default: .init()].listeners[listener.id] = listener
            if let onStarted { notifications.sessions[path]?.onStarted.append(onStarted) }
            let session = notifications.sessions[path]
            return (session?.call == nil && session?.started == false, session?.started == true)
        }
        if started { startedSession(path) }
        guard first else { return }
        let call = connection.call(destination: BlueZ.service, path: path, interface: BlueZ.characteristic, member: "StartNotify")
        let subscription = call.sink(
            receiveCompletion: { [weak self] completion in
                guard let self, case let .failure(error) = completion else { return }
                let failure = BluetoothError(error, during: "subscribing to notifications of \(device.address)")
                let listeners = lock.withLock { () -> [NotificationListener] in
                    defer { notifications.sessions[path] = nil }
                    return notifications.sessions[path].map { Array($0.listeners.values) } ?? []
                }
                for listener in listeners { listener.finish(.failure(failure)) }
            },
            receiveValue: { [weak self] _ in
                self?.lock.withLock {
                    self?.notifications.sessions[path]?.started = true
                    self?.notifications.sessions[path]?.call = nil
                }
                self?.startedSession(path)
            })
        lock.withLock { notifications.sessions[path]?.call = subscription }
    }

    /// Tells those waiting that the session is on.
    private func startedSession(_ path: DBusObjectPath) {
        let waiting = lock.withLock { () -> [@Sendable () -> Void] in
            defer { notifications.sessions[path]?.onStarted = [] }
            return notifications.sessions[path]?.onStarted ?? []
        }
        for action in waiting { action() }
    }

    /// Removes a listener; the last one stops bluetoothd's session.
    func removeListener(_ id: Int, from path: DBusObjectPath) {
        let stop = lock.withLock { () -> Bool in
            guard notifications.sessions[path]?.listeners.removeValue(forKey: id) != nil else { return false }
            guard notifications.sessions[path]?.listeners.isEmpty == true else { return false }
            let started = notifications.sessions[path]?.started ?? false
            notifications.sessions[path]?.call?.cancel()
            if notifications.sessions[path]?.readsInFlight == 0 { notifications.sessions[path] = nil }
            else { notifications.sessions[path]?.started = false }
            return started
        }
        guard stop else { return }
        run(connection.call(destination: BlueZ.service, path: path, interface: BlueZ.characteristic, member: "StopNotify"),
            operation: "stopping notifications") { _ in }
    }

    /// A `Value` change of a characteristic goes to its listeners (held while a read is under way).
    func notificationTreeEvent(_ event: DBusObjectManagerEvent) {
        guard case let .propertiesChanged(path, change) = event, change.interface == BlueZ.characteristic,
            let value = change.changed["Value"]?.bytes
        else { return }
        let listeners = lock.withLock { () -> [NotificationListener] in
            guard var session = notifications.sessions[path] else { return [] }
            if session.readsInFlight > 0 {
                session.held.append(value)
                notifications.sessions[path] = session
                return []
            }
            return Array(session.listeners.values)
        }
        for listener in listeners { listener.push(value) }
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
            notifications.sessions[path] = session.listeners.isEmpty && session.call == nil && !session.started ? nil : session
            return (Array(session.listeners.values), held)
        }
        for value in held { for listener in listeners { listener.push(value) } }
    }

    func failNotifications(with error: BluetoothError) {
        let listeners = lock.withLock { () -> [NotificationListener] in
            defer { notifications.sessions = [:] }
            return notifications.sessions.values.flatMap(\.listeners.values)
        }
        for listener in listeners { listener.finish(.failure(error)) }
    }

    /// The link of the device at `device` ended: its listeners end with `error`.
    func failNotifications(under device: DBusObjectPath, with error: BluetoothError) {
        let prefix = device.description + "/"
        let listeners = lock.withLock { () -> [NotificationListener] in
            let paths = notifications.sessions.keys.filter { $0.description.hasPrefix(prefix) }
            defer { for path in paths { notifications.sessions[path] = nil } }
            return paths.flatMap { notifications.sessions[$0]?.listeners.values.map { $0 } ?? [] }
        }
        for listener in listeners { listener.finish(.failure(error)) }
    }
}
