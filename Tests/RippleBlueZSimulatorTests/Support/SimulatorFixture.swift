import Ripple
import RippleDBus
import RippleLoop
import RippleTestKit
import RippleTestSupport
import Synchronization
import Testing

@testable import RippleBlueZSimulator

/// A simulator on a private bus of its own and a plain RippleDBus client beside it, for one test.
final class SimulatorFixture: TestFixture {
    let bus: SimulatedBus
    let simulator: BlueZSimulator
    let clientThread: EventLoopThread
    let client: DBusConnection

    init(
        world: SimulatedWorld,
        configuration: BlueZSimulator.Configuration = .init(
            deviceTimeout: .seconds(30), connectTimeout: .milliseconds(200))
    ) async throws {
        bus = try SimulatedBus()
        simulator = BlueZSimulator(world: world, bus: bus.bus, configuration: configuration)
        try await simulator.start()
        clientThread = try EventLoopThread(name: "sim-test-client")
        client = try DBusConnection(bus: bus.bus, loop: clientThread.loop)
    }

    /// A second client connection (another bus client, for per-client behaviour).
    func connectAnotherClient() throws -> DBusConnection {
        try DBusConnection(bus: bus.bus, loop: clientThread.loop)
    }

    /// Stops the simulator, the client and the bus.
    ///
    /// - Parameter sourceLocation: Unused: stopping finds no problems to record.
    func stop(sourceLocation _: SourceLocation = #_sourceLocation) async {
        client.close()
        await simulator.stop()
        clientThread.stop()
        bus.stop()
    }

    /// The reply body of `interface.member` on bluetoothd's object at `path`.
    func call(
        _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = [],
        on connection: DBusConnection? = nil
    ) async throws -> [DBusValue] {
        let connection = connection ?? client
        for try await reply in connection.call(
            destination: "org.bluez", path: try DBusObjectPath(path), interface: interface, member: member,
            arguments: arguments
        ).values {
            return reply.body
        }
        throw DBusError.disconnected
    }

    /// Sends a call now (it leaves before any call made after this returns) and returns its pending reply.
    func send(
        _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = []
    ) throws -> PendingReply {
        let pending = PendingReply()
        pending.subscription = client.call(
            destination: "org.bluez", path: try DBusObjectPath(path), interface: interface, member: member,
            arguments: arguments
        ).sink(
            receiveCompletion: { completion in
                if case .failure(let error) = completion { pending.resolve(.failure(error)) }
            },
            receiveValue: { message in pending.resolve(.success(message.body)) })
        return pending
    }

    /// The error name and message the call is answered with, or nil when it succeeds.
    func error(
        _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = [],
        on connection: DBusConnection? = nil
    ) async throws -> BlueZError? {
        do {
            _ = try await call(path, interface, member, arguments, on: connection)
            return nil
        } catch let DBusError.remote(name, message) {
            return BlueZError(name: name, message: message)
        }
    }

    /// A property's value (unwrapped), or nil when the object has no such property now.
    func property(_ path: String, _ interface: String, _ name: String) async throws -> DBusValue? {
        do {
            let body = try await call(
                path, "org.freedesktop.DBus.Properties", "Get", [.string(interface), .string(name)])
            return body.first?.unwrappingVariants
        } catch DBusError.remote(name: "org.freedesktop.DBus.Error.UnknownProperty", _) {
            return nil
        }
    }

    /// `Device1.Connect()` on the device at `path`, then waits for `ServicesResolved` (bluetoothd answers
    /// `Connect()` before the GATT objects exist).
    func connectAndResolve(_ path: String) async throws {
        let changes = try await signals("org.freedesktop.DBus.Properties", "PropertiesChanged")
        _ = try await call(path, "org.bluez.Device1", "Connect")
        if try await property(path, "org.bluez.Device1", "ServicesResolved") == .boolean(true) { return }
        _ = await changes.wait { messages in
            messages.contains {
                $0.path?.description == path && $0.propertiesChange?.changed["ServicesResolved"] == .boolean(true)
            }
        }
    }

    /// bluetoothd's tree: object path → interface → properties.
    func managedObjects() async throws -> [String: [String: [String: DBusValue]]] {
        let body = try await call("/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects")
        var tree: [String: [String: [String: DBusValue]]] = [:]
        for entry in body.first?.dictionaryEntries ?? [] {
            guard let path = entry.key.objectPath else { continue }
            var interfaces: [String: [String: DBusValue]] = [:]
            for interface in entry.value.dictionaryEntries ?? [] {
                guard let name = interface.key.string else { continue }
                interfaces[name] = (interface.value.stringVariantDictionary ?? [:]).mapValues(\.unwrappingVariants)
            }
            tree[path.description] = interfaces
        }
        return tree
    }

    /// Records the signals from `org.bluez` matching `member` (and `interface`), from now on.
    func signals(_ interface: String, _ member: String) async throws -> SignalLog {
        let log = SignalLog(
            client.signals(matching: DBusMatchRule(sender: "org.bluez", interface: interface, member: member)))
        for try await _ in client.synchronize().values {}
        return log
    }
}

/// The reply to a call sent with ``SimulatorFixture/send(_:_:_:_:)``.
final class PendingReply: Sendable {
    private struct State {
        var result: Result<[DBusValue], DBusError>?
        var waiter: CheckedContinuation<Result<[DBusValue], DBusError>, Never>?
    }

    // Ripple's Lock (a Mutex with an acquiring/releasing atomic beside it): ThreadSanitizer reports false
    // races on a bare Synchronization.Mutex on Linux.
    private let lock = Lock()
    private nonisolated(unsafe) var storage = State()
    nonisolated(unsafe) var subscription: AnyCancellable?

    func resolve(_ result: Result<[DBusValue], DBusError>) {
        let waiter = lock.withLock { () -> CheckedContinuation<Result<[DBusValue], DBusError>, Never>? in
            storage.result = result
            defer { storage.waiter = nil }
            return storage.waiter
        }
        waiter?.resume(returning: result)
    }

    /// Whether the reply (or an error) has come.
    var isResolved: Bool { lock.withLock { storage.result != nil } }

    /// The reply's body, or the error it failed with.
    func reply() async throws -> [DBusValue] {
        let result = await withCheckedContinuation { continuation in
            let ready = lock.withLock { () -> Result<[DBusValue], DBusError>? in
                if let result = storage.result { return result }
                storage.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
        return try result.get()
    }
}

/// Records signals (RippleTestKit's `TestSubscriber`, with unlimited demand) and lets a test await the
/// ones it needs. Waiting has a 30 s safety limit so that a broken test fails, with the last signals seen,
/// instead of hanging; it is never what a test measures. The subscription ends with the log.
final class SignalLog: Sendable {
    private let subscriber = TestSubscriber<DBusMessage, DBusError>()

    init<P: Publisher>(_ publisher: P) where P.Output == DBusMessage, P.Failure == DBusError {
        publisher.subscribe(subscriber)
    }

    deinit { subscriber.cancel() }

    var messages: [DBusMessage] { subscriber.values }

    /// Waits until the recorded signals satisfy `condition`; returns them.
    @discardableResult
    func wait(until condition: @escaping @Sendable ([DBusMessage]) -> Bool) async -> [DBusMessage] {
        do { try await subscriber.wait { condition($0.values) } } catch { Issue.record(error) }
        return messages
    }

    /// Waits for `count` signals.
    @discardableResult
    func wait(for count: Int) async -> [DBusMessage] {
        do { try await subscriber.waitForValues(count) } catch { Issue.record(error) }
        return messages
    }
}

extension DBusMessage {
    /// `PropertiesChanged`'s changed properties (unwrapped) and invalidated names.
    var propertiesChange: (interface: String, changed: [String: DBusValue], invalidated: [String])? {
        guard member == "PropertiesChanged", body.count == 3, let interface = body[0].string,
            let changed = body[1].stringVariantDictionary, let invalidated = body[2].arrayElements
        else { return nil }
        return (interface, changed.mapValues(\.unwrappingVariants), invalidated.compactMap(\.string))
    }
}
