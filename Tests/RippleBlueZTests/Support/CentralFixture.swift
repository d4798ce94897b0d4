import Foundation
import Ripple
import RippleBlueZSimulator
import RippleDBus
import RippleLoop
import RippleTestSupport
import Testing

@testable import RippleBlueZ

/// A simulator on a private bus and a `Central` on it, for one test.
///
/// The simulator sends in the order the test gives, or else in the order `RIPPLE_SIM_ORDER` names (`in-order`, the default, or `shuffled:SEED`:
/// see the simulator's "Signal ordering" article); the first fixture prints it with the command that
/// repeats the run.
final class CentralFixture: TestFixture {
    /// The order of `RIPPLE_SIM_ORDER`, or why it cannot be read.
    static let signalOrder: Result<BlueZSimulator.SignalOrder, SimulatorError> = {
        guard let text = ProcessInfo.processInfo.environment["RIPPLE_SIM_ORDER"], !text.isEmpty else {
            return .success(.inOrder)
        }
        guard let order = BlueZSimulator.SignalOrder(text) else {
            let problem = "RIPPLE_SIM_ORDER=\(text) is not an order: use in-order or shuffled:SEED"
            print("RippleBlueZTests: \(problem)")
            return .failure(.invalidWorld(problem))
        }
        print(
            "RippleBlueZTests: the simulator sends \(order) (repeat with: "
                + "RIPPLE_SIM_ORDER=\(order) swift test --skip-build --filter RippleBlueZTests)")
        return .success(order)
    }()

    let bus: SimulatedBus
    let simulator: BlueZSimulator
    let thread: EventLoopThread
    let central: Central

    init(
        world: SimulatedWorld, adapter: String? = nil, deviceTimeout: Duration = .seconds(30),
        waitUntilReady: Bool = true,
        refusingClients: Bool = false, signalsDisconnectionReasons: Bool = false,
        attributeTimeout: Duration = .seconds(5), signalOrder: BlueZSimulator.SignalOrder? = nil
    ) async throws {
        let order = try signalOrder ?? Self.signalOrder.get()
        bus = try SimulatedBus(refusingClients: refusingClients)
        simulator = BlueZSimulator(
            world: world, bus: bus.bus,
            configuration: .init(
                deviceTimeout: deviceTimeout, connectTimeout: .milliseconds(300),
                signalsDisconnectionReasons: signalsDisconnectionReasons, signalOrder: order))
        try await simulator.start()
        thread = try EventLoopThread(name: "central-test")
        central = try Central(bus: bus.bus, adapter: adapter, loop: thread.loop, attributeTimeout: attributeTimeout)
        if waitUntilReady { try await central.waitUntilReady() }
    }

    /// The events the central's state machines refused so far (none, when the central and bluetoothd
    /// agree).
    func violations() async -> [StateMachineViolation] {
        let core = central.core
        return await withCheckedContinuation { continuation in
            core.perform { continuation.resume(returning: core.confined.value.violations) }
        }
    }

    /// Stops everything; records an issue when a state machine refused an event meanwhile.
    func stop(sourceLocation: SourceLocation = #_sourceLocation) async {
        await watched("stopping the central's fixture", sourceLocation: sourceLocation) {
            let refused = await violations()
            if !refused.isEmpty {
                Issue.record("the central's machines refused events: \(refused)", sourceLocation: sourceLocation)
            }
            central.close()
            await simulator.stop()
            thread.stop()
            bus.stop()
        }
    }
}

/// Subscribes to a publisher and records its values and completion, with the demand the test chooses;
/// tests wait for a condition on what it recorded, woken by each event (no polling).
final class Collector<Output: Sendable>: Subscriber, Sendable {
    typealias Input = Output
    typealias Failure = BluetoothError

    /// What the collector has seen so far.
    struct Record: Sendable {
        var values: [Output] = []
        var completion: Subscribers.Completion<BluetoothError>?
    }

    private struct Waiter {
        let condition: @Sendable (Record) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    private let lock = Lock()
    nonisolated(unsafe) private var record = Record()
    nonisolated(unsafe) private var subscription: (any Subscription)?
    nonisolated(unsafe) private var waiters: [Int: Waiter] = [:]
    nonisolated(unsafe) private var nextWaiter = 0
    private let initialDemand: Subscribers.Demand

    /// Subscribes to `publisher`, asking for `demand` values at first (all of them by default).
    init(_ publisher: some Publisher<Output, BluetoothError>, demand: Subscribers.Demand = .unlimited) {
        initialDemand = demand
        publisher.subscribe(self)
    }

    var values: [Output] { lock.withLock { record.values } }
    var completion: Subscribers.Completion<BluetoothError>? { lock.withLock { record.completion } }

    /// The error the stream failed with; records an issue and returns nil when it did not fail.
    func failure(sourceLocation: SourceLocation = #_sourceLocation) -> BluetoothError? {
        guard case .failure(let error)? = completion else {
            Issue.record("the stream did not fail: \(String(describing: completion))", sourceLocation: sourceLocation)
            return nil
        }
        return error
    }

    func receive(subscription: any Subscription) {
        lock.withLock { self.subscription = subscription }
        if initialDemand > .none { subscription.request(initialDemand) }
    }

    func receive(_ input: Output) -> Subscribers.Demand {
        update { $0.values.append(input) }
        return .none
    }

    func receive(completion: Subscribers.Completion<BluetoothError>) {
        // The stream is over: its subscription is released (as a sink does), which ends their cycle.
        lock.withLock { subscription = nil }
        update { $0.completion = completion }
    }

    /// Asks for `demand` more values.
    func request(_ demand: Subscribers.Demand) {
        let current = lock.withLock { subscription }
        current?.request(demand)
    }

    func cancel() {
        let current = lock.withLock { () -> (any Subscription)? in
            defer { subscription = nil }
            return subscription
        }
        current?.cancel()
    }

    private func update(_ change: (inout Record) -> Void) {
        let ready = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            change(&record)
            let done = waiters.filter { $0.value.condition(record) }
            for key in done.keys { waiters[key] = nil }
            return done.values.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns once `condition` holds for what was recorded; records an issue after 30 s (a watchdog:
    /// the condition is checked on every event, never by polling).
    func wait(until condition: @escaping @Sendable (Record) -> Bool) async {
        let id = lock.withLock { () -> Int in
            nextWaiter += 1
            return nextWaiter
        }
        let watchdog = Task { [weak self] in
            try await Task.sleep(for: .seconds(30))
            if self?.abandon(id) == true { Issue.record("a collector's condition did not hold within 30 s") }
        }
        await withCheckedContinuation { continuation in
            let holds = lock.withLock { () -> Bool in
                if condition(record) { return true }
                waiters[id] = Waiter(condition: condition, continuation: continuation)
                return false
            }
            if holds { continuation.resume() }
        }
        watchdog.cancel()
    }

    /// Resumes the waiter `id` if it is still waiting.
    private func abandon(_ id: Int) -> Bool {
        let waiter = lock.withLock { waiters.removeValue(forKey: id) }
        waiter?.continuation.resume()
        return waiter != nil
    }
}
