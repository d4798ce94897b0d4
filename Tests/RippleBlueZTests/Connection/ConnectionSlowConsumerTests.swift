import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleTestKit
import RippleTestSupport
import Testing

/// The connection streams under a consumer that asks for one value at a time while connections come and
/// go: the connected and connecting lists are *state* streams (the list now, then the latest, never a
/// repeat), connection events an *event* stream (a buffer per subscriber, exact drop counts).
@Suite(.timeLimit(Patience.test)) struct ConnectionSlowConsumerTests {
    /// Connects the lab peripheral (after a scan), disconnects it, connects it again and disconnects it.
    private static func connectTwice(_ fixture: CentralFixture) async throws {
        let peripheral = try await fixture.connect()
        try await peripheral.disconnectPeripheral()
        let again = try await fixture.central.connectPeripheral(to: Lab.address)
        try await again.disconnectPeripheral()
    }

    @Test func aSlowConnectedListSubscriberGetsTheListNowThenTheLatest() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let central = fixture.central
            let slow = TestSubscriber(
                central.connectedPeripherals.map { $0.map(\.address) }.setFailureType(
                    to: BluetoothError.self), demand: .none)
            slow.request(.max(1))
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 1 }
            #expect(slow.values == [[]])
            // Connected, disconnected, connected while it asked for nothing: it gets the list now.
            let peripheral = try await fixture.connect()
            try await peripheral.disconnectPeripheral()
            let again = try await central.connectPeripheral(to: Lab.address)
            await fixture.settle()
            #expect(slow.values == [[]])
            slow.request(.max(1))
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 2 }
            #expect(slow.values == [[], [Lab.address]])
            // Nothing changed since: its demand waits for the next change.
            slow.request(.max(1))
            await fixture.settle()
            #expect(slow.values.count == 2)
            try await again.disconnectPeripheral()
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 3 }
            #expect(slow.values == [[], [Lab.address], []])
        }
    }

    @Test func aSlowConnectingListSubscriberNeverGetsAStaleOrRepeatedList() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let central = fixture.central
            let slow = TestSubscriber(
                central.connectingPeripherals.map { $0.map(\.address) }.setFailureType(
                    to: BluetoothError.self), demand: .none)
            slow.request(.max(1))
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 1 }
            #expect(slow.values == [[]])
            // A whole attempt while it asked for nothing: the list is empty again, as last delivered.
            let peripheral = try await fixture.connect()
            try await peripheral.disconnectPeripheral()
            slow.request(.max(1))
            await fixture.settle()
            #expect(slow.values == [[]])
            // With demand waiting, the next attempt is seen as it starts; its end waits for the next demand.
            _ = try await central.connectPeripheral(to: Lab.address)
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 2 }
            #expect(slow.values == [[], [Lab.address]])
            slow.request(.max(1))
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 3 }
            #expect(slow.values == [[], [Lab.address], []])
        }
    }

    @Test func aSlowConnectionEventsSubscriberGetsEveryEventWithinItsBuffer() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let statistics = EventStatistics()
            let slow = TestSubscriber(
                fixture.central.connectionEvents(buffering: .default, statistics: statistics)
                    .setFailureType(to: BluetoothError.self), demand: .none)
            let fast = TestSubscriber(fixture.central.connectionEvents.setFailureType(to: BluetoothError.self))
            try await Self.connectTwice(fixture)
            try await fast.wait(timeout: Patience.step) {
                $0.values.filter { if case .disconnected = $0 { true } else { false } }.count == 2
            }
            await fixture.settle()
            let events = fast.values
            #expect(statistics.received == events.count)
            #expect(statistics.delivered == 0)
            for count in 1...events.count {
                slow.request(.max(1))
                try await slow.wait(timeout: Patience.step) { $0.valueCount == count }
            }
            #expect(slow.values == events)
            #expect(statistics.dropped == 0)
            #expect(slow.completion == nil)
        }
    }

    @Test func aSlowConnectionEventsSubscriberUnderDropOldestGetsTheLatestAndTheCount() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let statistics = EventStatistics()
            let slow = TestSubscriber(
                fixture.central.connectionEvents(
                    buffering: EventBuffering(capacity: 2, policy: .dropOldest), statistics: statistics
                ).setFailureType(to: BluetoothError.self), demand: .none)
            let fast = TestSubscriber(fixture.central.connectionEvents.setFailureType(to: BluetoothError.self))
            try await Self.connectTwice(fixture)
            try await fast.wait(timeout: Patience.step) {
                $0.values.filter { if case .disconnected = $0 { true } else { false } }.count == 2
            }
            await fixture.settle()
            let events = fast.values
            #expect(statistics.received == events.count)
            #expect(statistics.dropped == events.count - 2)
            slow.request(.max(10))
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 2 }
            await fixture.settle()
            #expect(slow.values == Array(events.suffix(2)))
            #expect(slow.completion == nil)
        }
    }
}
