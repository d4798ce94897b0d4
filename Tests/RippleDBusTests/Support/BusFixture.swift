import Ripple
import RippleDBus
import RippleLoop
import Synchronization
import Testing

/// A private bus and a loop thread for one test: connections made through it use the loop; everything
/// stops when the fixture is released (or ``stop()`` is called), its connections closed first (which
/// releases what their exported objects' handlers hold).
final class BusFixture: Sendable {
    let daemon: PrivateDBusDaemon
    let loopThread: EventLoopThread
    private let connections = Mutex<[DBusConnection]>([])

    init() throws {
        daemon = try PrivateDBusDaemon()
        loopThread = try EventLoopThread(name: "dbus-test-loop")
    }

    var loop: EventLoop { loopThread.loop }

    /// A new connection to the private bus.
    func connect() throws -> DBusConnection {
        let connection = try DBusConnection(bus: daemon.bus, loop: loop)
        connections.withLock { $0.append(connection) }
        return connection
    }

    deinit {
        // Closed on the loop, before it stops (what was scheduled before the stop still runs).
        for connection in connections.withLock({ $0 }) { connection.close() }
        daemon.stop()
        loopThread.stop()
    }
}

/// Records what a publisher emits, and lets a test await a number of values or the completion.
///
/// Waiting has a generous safety limit (30 s) so that a broken test fails instead of hanging the suite;
/// it is never what a test measures.
final class Recorder<Value: Sendable>: Sendable {
    private struct State {
        var values: [Value] = []
        var completion: Subscribers.Completion<DBusError>?
        var waiters: [(condition: @Sendable (Int, Bool) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
        var subscription: AnyCancellable?
    }

    // Ripple's Lock (a Mutex with an acquiring/releasing atomic beside it): ThreadSanitizer reports false
    // races on a bare Synchronization.Mutex on Linux.
    private let lock = Lock()
    private nonisolated(unsafe) var storage = State()

    /// Subscribes to `publisher` with unlimited demand.
    init<P: Publisher>(_ publisher: P) where P.Output == Value, P.Failure == DBusError {
        let cancellable = publisher.sink(
            receiveCompletion: { [weak self] completion in self?.record(completion: completion) },
            receiveValue: { [weak self] value in self?.record(value) })
        lock.withLock { storage.subscription = cancellable }
    }

    var values: [Value] { lock.withLock { storage.values } }
    var completion: Subscribers.Completion<DBusError>? { lock.withLock { storage.completion } }

    func cancel() {
        let subscription = lock.withLock { storage.subscription }
        subscription?.cancel()
    }

    private func record(_ value: Value) {
        let ready = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            storage.values.append(value)
            return Self.takeReady(&storage)
        }
        ready.forEach { $0.resume() }
    }

    private func record(completion: Subscribers.Completion<DBusError>) {
        let ready = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            storage.completion = completion
            return Self.takeReady(&storage)
        }
        ready.forEach { $0.resume() }
    }

    private static func takeReady(_ storage: inout State) -> [CheckedContinuation<Void, Never>] {
        let count = storage.values.count
        let done = storage.completion != nil
        var ready: [CheckedContinuation<Void, Never>] = []
        storage.waiters.removeAll { waiter in
            guard waiter.condition(count, done) else { return false }
            ready.append(waiter.continuation)
            return true
        }
        return ready
    }

    /// Waits until `count` values have come (or the stream ended).
    func waitForValues(_ count: Int) async {
        await wait { received, done in received >= count || done }
    }

    /// Waits until the stream ended.
    func waitForCompletion() async {
        await wait { _, done in done }
    }

    private func wait(until condition: @escaping @Sendable (Int, Bool) -> Bool) async {
        let watchdog = Task { [weak self] in
            try await Task.sleep(for: .seconds(30))
            self?.releaseWaiters()
        }
        await withCheckedContinuation { continuation in
            let satisfied = lock.withLock { () -> Bool in
                if condition(storage.values.count, storage.completion != nil) { return true }
                storage.waiters.append((condition, continuation))
                return false
            }
            if satisfied { continuation.resume() }
        }
        watchdog.cancel()
    }

    private func releaseWaiters() {
        let waiting = lock.withLock {
            defer { storage.waiters = [] }
            return storage.waiters.map(\.continuation)
        }
        Issue.record("timed out waiting for a stream")
        waiting.forEach { $0.resume() }
    }
}

extension DBusConnection {
    /// Calls a method of the bus itself.
    func callBus(_ member: String, _ arguments: [DBusValue] = []) async throws -> DBusMessage {
        try await call(
            destination: "org.freedesktop.DBus", path: DBusObjectPath("/org/freedesktop/DBus"),
            interface: "org.freedesktop.DBus", member: member, arguments: arguments
        ).firstValue
    }

    /// Takes the well-known name `name` (RequestName with DO_NOT_QUEUE), expecting to become its owner.
    func takeName(_ name: String) async throws {
        let reply = try await callBus("RequestName", [.string(name), .uint32(4)])
        #expect(reply.body == [.uint32(1)])
    }

    /// Waits until the bus has taken in everything asked so far.
    func settle() async throws {
        _ = try await synchronize().firstValue
    }
}
