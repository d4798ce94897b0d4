import Ripple
import RippleDBus
import RippleLoop
import Synchronization
import Testing

@testable import RippleBlueZSimulator

/// A simulator on a private bus of its own and a plain RippleDBus client beside it, for one test.
final class SimulatorFixture: Sendable {
    let bus: SimulatedBus
    let simulator: BlueZSimulator
    let clientThread: EventLoopThread
    let client: DBusConnection

    init(
        world: SimulatedWorld,
        configuration: BlueZSimulator.Configuration = .init(deviceTimeout: .seconds(30), connectTimeout: .milliseconds(200))
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
    func stop() async {
        client.close()
        await simulator.stop()
        clientThread.stop()
        bus.stop()
    }

    /// The reply body of `interface.member` on bluetoothd's object at `path`.
    func call(
        _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = [], on connection: DBusConnection? = nil
    ) async throws -> [DBusValue] {
        let connection = connection ?? client
        for try await reply in connection.call(
            destination: "org.bluez", path: try DBusObjectPath(path), interface: interface, member: member, arguments: arguments
        ).values {
            return reply.body
        }
        throw DBusError.disconnected
    }

    /// The error name and message the call is answered with, or nil when it succeeds.
    func error(
        _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = [], on connection: DBusConnection? = nil
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
            let body = try await call(path, "org.freedesktop.DBus.Properties", "Get", [.string(interface), .string(name)])
            return body.first?.unwrappingVariants
        } catch DBusError.remote(name: "org.freedesktop.DBus.Error.UnknownProperty", _) {
            return nil
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
        let log = SignalLog(client.signals(matching: DBusMatchRule(sender: "org.bluez", interface: interface, member: member)))
        for try await _ in client.synchronize().values {}
        return log
    }
}

/// Records signals and lets a test await one that satisfies a condition. Waiting has a 30 s safety limit
/// so that a broken test fails instead of hanging; it is never what a test measures.
final class SignalLog: Sendable {
    private struct State {
        var messages: [DBusMessage] = []
        var waiters: [(condition: @Sendable ([DBusMessage]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
        var subscription: AnyCancellable?
    }

    private let state = Mutex(State())

    init<P: Publisher>(_ publisher: P) where P.Output == DBusMessage, P.Failure == DBusError {
        let subscription = publisher.sink(receiveCompletion: { _ in }, receiveValue: { [weak self] in self?.record($0) })
        state.withLock { $0.subscription = subscription }
    }

    var messages: [DBusMessage] { state.withLock { $0.messages } }

    private func record(_ message: DBusMessage) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.messages.append(message)
            var ready: [CheckedContinuation<Void, Never>] = []
            let messages = state.messages
            state.waiters.removeAll { waiter in
                guard waiter.condition(messages) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        ready.forEach { $0.resume() }
    }

    /// Waits until the recorded signals satisfy `condition`; returns them.
    @discardableResult
    func wait(until condition: @escaping @Sendable ([DBusMessage]) -> Bool) async -> [DBusMessage] {
        let watchdog = Task { [weak self] in
            try await Task.sleep(for: .seconds(30))
            self?.releaseWaiters()
        }
        await withCheckedContinuation { continuation in
            let satisfied = state.withLock { state -> Bool in
                if condition(state.messages) { return true }
                state.waiters.append((condition, continuation))
                return false
            }
            if satisfied { continuation.resume() }
        }
        watchdog.cancel()
        return messages
    }

    /// Waits for `count` signals.
    @discardableResult
    func wait(for count: Int) async -> [DBusMessage] {
        await wait { $0.count >= count }
    }

    private func releaseWaiters() {
        let waiting = state.withLock { state in
            defer { state.waiters = [] }
            return state.waiters.map(\.continuation)
        }
        if !waiting.isEmpty { Issue.record("timed out waiting for signals") }
        waiting.forEach { $0.resume() }
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
