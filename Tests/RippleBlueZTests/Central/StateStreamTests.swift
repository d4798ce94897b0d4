import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleTestKit
import RippleTestSupport
import Testing

/// ``Central/state`` is a state stream: a subscriber that asks for one value at a time gets the state
/// now first, then the latest state each time it asks, never the ones in between; and when a change is
/// delivered, the rest of the central agrees with it.
@Suite(.timeLimit(Patience.test)) struct StateStreamTests {
    @Test func aSlowSubscriberGetsTheStateNowThenTheLatest() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let loop = fixture.central.loop
            let slow = SlowSubscriber<CentralState, Never>(isExpectedThread: { loop.isInLoopThread })
            fixture.central.state.subscribe(slow)
            let watcher = TestSubscriber(fixture.central.state.setFailureType(to: BluetoothError.self))
            slow.release()
            await fixture.settle()
            #expect(slow.values == [.poweredOn])
            for powered in [false, true, false] {
                try await fixture.simulator.setPowered(powered, adapter: "hci0")
                try await watcher.wait(timeout: Patience.step) {
                    $0.values.last == (powered ? .poweredOn : .poweredOff)
                }
            }
            // Three changes while it asked for nothing: it gets the state now.
            slow.release()
            await fixture.settle()
            #expect(slow.values == [.poweredOn, .poweredOff])
            // Nothing changed since: its demand waits for the next change.
            slow.release()
            await fixture.settle()
            #expect(slow.values == [.poweredOn, .poweredOff])
            try await fixture.simulator.setPowered(true, adapter: "hci0")
            try await watcher.wait(timeout: Patience.step) { $0.values.last == .poweredOn }
            await fixture.settle()
            #expect(slow.values == [.poweredOn, .poweredOff, .poweredOn])
            #expect(watcher.values == [.poweredOn, .poweredOff, .poweredOn, .poweredOff, .poweredOn])
            #expect(slow.deliveriesOffThread == 0)
            slow.cancel()
        }
    }

    /// When the state stream delivers a power change, the central agrees: its current state, its adapter,
    /// discovery, the connected list and the peripheral's link.
    @Test func aPowerChangeIsDeliveredOnceTheCentralAgreesWithIt() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let central = fixture.central
            let peripheral = try await fixture.connect()
            let discovery = TestSubscriber(central.startDiscovery())
            let scanning = TestSubscriber(central.isScanning.setFailureType(to: BluetoothError.self))
            try await scanning.wait(timeout: Patience.step) { $0.values.last == true }
            struct Agreement: Equatable, Sendable {
                var state: CentralState
                var current: CentralState
                var adapterPowered: Bool?
                var scanning: Bool?
                var connected: [BluetoothAddress]?
                var peripheralConnected: Bool
            }
            let seen = TestSubscriber(
                central.state.dropFirst().map { state in
                    Agreement(
                        state: state, current: central.currentState, adapterPowered: central.adapter?.isPowered,
                        scanning: currentValue(of: central.isScanning),
                        connected: currentValue(of: central.connectedPeripherals)?.map(\.address),
                        peripheralConnected: peripheral.isConnected)
                }.setFailureType(to: BluetoothError.self))
            try await fixture.simulator.setPowered(false, adapter: "hci0")
            try await seen.wait(timeout: Patience.step) { $0.valueCount == 1 }
            try await fixture.simulator.setPowered(true, adapter: "hci0")
            try await seen.wait(timeout: Patience.step) { $0.valueCount == 2 }
            #expect(
                seen.values == [
                    Agreement(
                        state: .poweredOff, current: .poweredOff, adapterPowered: false, scanning: false, connected: [],
                        peripheralConnected: false),
                    Agreement(
                        state: .poweredOn, current: .poweredOn, adapterPowered: true, scanning: false, connected: [],
                        peripheralConnected: false),
                ])
            // The discovery waited through it (it resumes by default).
            try await scanning.wait(timeout: Patience.step) { $0.values.last == true }
            #expect(discovery.completion == nil)
        }
    }
}
