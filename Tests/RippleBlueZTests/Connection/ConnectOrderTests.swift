import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleTestKit
import RippleTestSupport
import Testing

/// `connect` completes only once the database it announces can be used, in every order bluetoothd may
/// send its signals in: bluetoothd can signal `ServicesResolved = true` before the `InterfacesAdded` of
/// the GATT objects it announces (bluez issue 1489), and a pipeline that reads in the very turn `connect`
/// delivers its peripheral must still find the characteristic — with no wait for late attributes to fall
/// back on.
@Suite(.timeLimit(Patience.test)) struct ConnectOrderTests {
    /// Seeds of the simulator's shuffled order; some send `ServicesResolved` before the GATT objects,
    /// others after (the test checks that both happened).
    private static let seeds: [UInt64] = Array(1...16)
    /// The lab peripheral's path in the simulator's trace (shortened below `/org/bluez/`).
    private static let device = "hci0/" + Lab.address.bluezPathComponent

    @Test func aReadInConnectsOwnTurnFindsItsCharacteristicInEveryOrder() async throws {
        var orders: Set<String> = []
        for seed in Self.seeds {
            let fixture = try await CentralFixture(
                world: Lab.world, attributeTimeout: .zero, signalOrder: .shuffled(seed: seed))
            let order = try await withFixture(fixture) { fixture in
                let values = TestSubscriber(
                    fixture.central.startDiscovery(filter: .services([Lab.service]))
                        .first()
                        .connect(on: fixture.central)
                        .read(CharacteristicReference(Lab.sensor))
                )
                try await values.wait(timeout: Patience.step) { $0.completion != nil }
                #expect(values.values.count == 1, "seed \(seed)")
                #expect(values.completion == .finished, "seed \(seed)")
                let trace = try await fixture.simulator.signalTrace()
                let resolved = trace.firstIndex {
                    $0.hasPrefix(Self.device + " Device1") && $0.contains("ServicesResolved=true")
                }
                let objects = trace.firstIndex { $0.hasPrefix("+" + Self.device + "/service") }
                guard let resolved, let objects else { return "not in the trace" }
                return resolved < objects ? "resolved first" : "objects first"
            }
            orders.insert(order)
        }
        #expect(orders == ["resolved first", "objects first"])
    }
}
