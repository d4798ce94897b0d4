import Ripple
import RippleDBus
import RippleLoop
import RippleTestKit
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

/// Records what a publisher emits (RippleTestKit's `TestSubscriber`, with unlimited demand), and lets a
/// test await a number of values or the completion.
///
/// Waiting has a generous safety limit (30 s) so that a broken test fails, with the history so far,
/// instead of hanging the suite; it is never what a test measures. The subscription ends with the recorder.
final class Recorder<Value: Sendable>: Sendable {
    /// The subscriber under the recorder, for exact histories.
    let subscriber = TestSubscriber<Value, DBusError>()

    /// Subscribes to `publisher` with unlimited demand.
    init<P: Publisher>(_ publisher: P) where P.Output == Value, P.Failure == DBusError {
        publisher.subscribe(subscriber)
    }

    deinit { subscriber.cancel() }

    var values: [Value] { subscriber.values }
    var completion: Subscribers.Completion<DBusError>? { subscriber.completion }

    func cancel() { subscriber.cancel() }

    /// Waits until `count` values have come (or the stream ended); records an issue after `timeout`.
    func waitForValues(_ count: Int, timeout: Duration = .seconds(30)) async {
        do { try await subscriber.waitForValues(count, timeout: timeout) } catch { Issue.record(error) }
    }

    /// Waits until the stream ended.
    func waitForCompletion() async {
        do { try await subscriber.waitForCompletion() } catch { Issue.record(error) }
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
