import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleDBus
import RippleLoop
import Testing

/// A simulator on a private bus and a `Central` on it, for one test.
final class CentralFixture: Sendable {
    let bus: SimulatedBus
    let simulator: BlueZSimulator
    let thread: EventLoopThread
    let central: Central

    init(world: SimulatedWorld, adapter: String? = nil) async throws {
        bus = try SimulatedBus()
        simulator = BlueZSimulator(
            world: world, bus: bus.bus, configuration: .init(deviceTimeout: .seconds(30), connectTimeout: .milliseconds(300)))
        try await simulator.start()
        thread = try EventLoopThread(name: "central-test")
        central = try Central(bus: bus.bus, adapter: adapter, loop: thread.loop)
        try await central.waitUntilReady()
    }

    func stop() async {
        central.close()
        await simulator.stop()
        thread.stop()
        bus.stop()
    }
}

/// Collects a publisher's values and completion.
final class Collector<Output: Sendable>: Sendable {
    private let lock = Lock()
    nonisolated(unsafe) private var storedValues: [Output] = []
    nonisolated(unsafe) private var storedCompletion: Subscribers.Completion<BluetoothError>?
    nonisolated(unsafe) private var cancellable: AnyCancellable?

    init(_ publisher: some Publisher<Output, BluetoothError>) {
        let subscription = publisher.sink(
            receiveCompletion: { [weak self] completion in self?.lock.withLock { self?.storedCompletion = completion } },
            receiveValue: { [weak self] value in self?.lock.withLock { self?.storedValues.append(value) } })
        lock.withLock { cancellable = subscription }
    }

    var values: [Output] { lock.withLock { storedValues } }
    var completion: Subscribers.Completion<BluetoothError>? { lock.withLock { storedCompletion } }

    func cancel() {
        let subscription = lock.withLock { cancellable }
        subscription?.cancel()
    }

    /// Waits (polling the loop-delivered state, at most 30 s) until `condition` holds.
    func wait(until condition: @escaping @Sendable (Collector) -> Bool) async {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition(self), ContinuousClock.now < deadline { await Task.yield() }
    }
}
