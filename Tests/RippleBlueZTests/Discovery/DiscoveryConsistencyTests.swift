import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleTestKit
import RippleTestSupport
import Synchronization
import Testing

/// ``Central/isScanning`` agrees with discovery at the instant each change is seen: true when bluetoothd
/// has started discovering and the first discovery is delivered, false as soon as the last subscriber
/// has cancelled.
@Suite(.timeLimit(Patience.test)) struct DiscoveryConsistencyTests {
    @Test func isScanningAgreesWithDiscoveryWhenItStartsAndWhenItStops() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let central = fixture.central
            let whileDelivering = Mutex<[Bool?]>([])
            let discovery = TestSubscriber(
                central.startDiscovery().handleEvents(receiveOutput: { _ in
                    // Delivered on the loop thread, where the state stream's value now is read at once.
                    let scanning = currentValue(of: central.isScanning)
                    whileDelivering.withLock { $0.append(scanning) }
                }))
            try await discovery.wait(timeout: Patience.step) { !$0.values.isEmpty }
            #expect(whileDelivering.withLock { $0.first } == true)
            // Once isScanning says true, bluetoothd discovers for the central.
            let scanning = TestSubscriber(central.isScanning.setFailureType(to: BluetoothError.self))
            try await scanning.wait(timeout: Patience.step) { $0.values.last == true }
            #expect(try await fixture.simulator.discoveringClients().count == 1)
            // Cancelled on the loop thread: isScanning is false when cancel returns, before bluetoothd answers.
            let afterCancel = await central.loop.perform { () -> Bool? in
                discovery.cancel()
                return currentValue(of: central.isScanning)
            }
            #expect(afterCancel == false)
            try await scanning.wait(timeout: Patience.step) { $0.values.last == false }
            #expect(scanning.values == [true, false])
            // Then bluetoothd stops: the central's StopDiscovery was sent as isScanning turned false, and reaches
            // the simulator within a few of its round trips (the simulator is asked on another connection).
            var rounds = 0
            while try await !fixture.simulator.discoveringClients().isEmpty, rounds < 1_000 {
                await fixture.settle()
                rounds += 1
            }
            #expect(try await fixture.simulator.discoveringClients().isEmpty)
        }
    }

    @Test func aDiscoveryStartedWhileScanningSeesIsScanningTrueAtItsFirstValue() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let central = fixture.central
            let first = TestSubscriber(central.startDiscovery())
            try await first.wait(timeout: Patience.step) { !$0.values.isEmpty }
            let atFirstValue = Mutex<Bool??>(nil)
            let second = TestSubscriber(
                central.startDiscovery().handleEvents(receiveOutput: { _ in
                    let scanning = currentValue(of: central.isScanning)
                    atFirstValue.withLock { $0 = $0 ?? scanning }
                }))
            try await second.wait(timeout: Patience.step) { !$0.values.isEmpty }
            #expect(atFirstValue.withLock { $0 } == .some(true))
        }
    }
}
