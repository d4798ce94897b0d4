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
        world: SimulatedWorld, adapter: String? = nil, deviceTimeout: Duration = Patience.step,
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
