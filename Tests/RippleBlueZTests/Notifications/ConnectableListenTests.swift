import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleTestKit
import RippleTestSupport
import Testing

/// Listening set up before connecting, in LittleBlueTooth's `connectableListenPublisher` shape: the
/// channel and its subscribers first, the connection after.
@Suite(.timeLimit(Patience.test)) struct ConnectableListenTests {
    private let sensor = CharacteristicReference(Lab.sensor)

    @Test func subscribersMadeBeforeTheConnectionReceiveOnceThePeripheralIsReady() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let channel = fixture.central.connectableListen(to: sensor, of: Lab.address, as: UInt8.self)
            let first = TestSubscriber(channel)
            let second = TestSubscriber(channel.map { $0 * 2 })
            let armed = channel.connect()
            let peripheral = try await fixture.connect()
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[1], [2]])
            try await first.wait(timeout: Patience.step) { $0.valueCount == 2 }
            try await second.wait(timeout: Patience.step) { $0.valueCount == 2 }
            #expect(first.values == [1, 2])
            #expect(second.values == [2, 4])
            // The link ends and a new one starts: the channel listens again, its subscribers see no end.
            try await peripheral.disconnectPeripheral()
            _ = try await fixture.central.connectPeripheral(to: Lab.address)
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[3]])
            try await first.wait(timeout: Patience.step) { $0.valueCount == 3 }
            #expect(first.values == [1, 2, 3])
            #expect(first.completion == nil)
            armed.cancel()
            first.cancel()
            second.cancel()
        }
    }

    /// The channel is an *event* stream: each subscriber has a buffer of its own. A subscriber that takes
    /// one notification at a time while more keep arriving gets, under `.dropOldest`, the oldest waiting
    /// at each demand; every notification pushed out of its full buffer is counted once, and a subscriber
    /// with demand to spare loses nothing.
    @Test func aSlowSubscriberTakingOneAtATimeUnderDropOldestGetsExactValuesAndDrops() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let statistics = NotificationStatistics()
            let channel = fixture.central.connectableListen(
                to: sensor, of: Lab.address, as: UInt8.self, buffering: .init(capacity: 2, policy: .dropOldest),
                statistics: statistics)
            let fast = TestSubscriber(channel)
            let slow = TestSubscriber(channel, demand: .none)
            let drops = TestSubscriber(statistics.drops.setFailureType(to: BluetoothError.self))
            let armed = channel.connect()
            _ = try await fixture.connect()
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            // 1, 2, 3 with no demand: 1 is pushed out of the slow buffer of two.
            try await fixture.notify(Lab.sensor, [[1], [2], [3]])
            try await fast.wait(timeout: Patience.step) { $0.valueCount == 3 }
            try await drops.wait(timeout: Patience.step) { $0.values.last == 1 }
            slow.request(.max(1))
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 1 }
            #expect(slow.values == [2])
            // 4 and 5 arrive while it holds 3: 3 is pushed out.
            try await fixture.notify(Lab.sensor, [[4], [5]])
            try await fast.wait(timeout: Patience.step) { $0.valueCount == 5 }
            try await drops.wait(timeout: Patience.step) { $0.values.last == 2 }
            slow.request(.max(1))
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 2 }
            #expect(slow.values == [2, 4])
            // 6 finds room (5 waits): nothing is pushed out.
            try await fixture.notify(Lab.sensor, [[6]])
            try await fast.wait(timeout: Patience.step) { $0.valueCount == 6 }
            await fixture.settle()
            slow.request(.max(1))
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 3 }
            slow.request(.max(1))
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 4 }
            #expect(slow.values == [2, 4, 5, 6])
            // With demand waiting and its buffer empty, the next notification goes straight through.
            slow.request(.max(1))
            await fixture.settle()
            try await fixture.notify(Lab.sensor, [[7]])
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 5 }
            try await fast.wait(timeout: Patience.step) { $0.valueCount == 7 }
            await fixture.settle()
            #expect(slow.values == [2, 4, 5, 6, 7])
            #expect(fast.values == [1, 2, 3, 4, 5, 6, 7])
            #expect(drops.values == [0, 1, 2])
            #expect(statistics.received == 14)
            #expect(statistics.dropped == 2)
            #expect(statistics.delivered == 12)
            #expect(slow.completion == nil)
            armed.cancel()
            fast.cancel()
            slow.cancel()
            drops.cancel()
        }
    }

    /// Under `.failStream`, a slow subscriber's stream fails the moment its buffer overflows, with the
    /// notifications it held counted as dropped; the channel goes on for the others.
    @Test func aSlowSubscriberTakingOneAtATimeUnderFailStreamFailsAtTheOverflow() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let statistics = NotificationStatistics()
            let channel = fixture.central.connectableListen(
                to: sensor, of: Lab.address, as: UInt8.self, buffering: .init(capacity: 2, policy: .failStream),
                statistics: statistics)
            let fast = TestSubscriber(channel)
            let slow = TestSubscriber(channel, demand: .none)
            let armed = channel.connect()
            _ = try await fixture.connect()
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[1], [2]])
            try await fast.wait(timeout: Patience.step) { $0.valueCount == 2 }
            slow.request(.max(1))
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 1 }
            #expect(slow.values == [1])
            // 3 fills the buffer again (2, 3); 4 overflows it: the stream fails, 2, 3 and 4 dropped.
            try await fixture.notify(Lab.sensor, [[3], [4]])
            try await slow.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(slow.failure()?.kind == .bufferOverflow)
            #expect(slow.values == [1])
            try await fixture.notify(Lab.sensor, [[5]])
            try await fast.wait(timeout: Patience.step) { $0.valueCount == 5 }
            #expect(fast.values == [1, 2, 3, 4, 5])
            #expect(fast.completion == nil)
            #expect(statistics.dropped == 3)
            #expect(statistics.delivered == 6)
            #expect(statistics.received == 9)
            armed.cancel()
            fast.cancel()
        }
    }

    @Test func aChannelArmedWhileThePeripheralIsConnectedListensAtOnce() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            _ = try await fixture.connect()
            let channel = fixture.central.connectableListen(to: sensor, of: Lab.address)
            let listener = TestSubscriber(channel)
            let armed = channel.connect()
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[7, 7]])
            try await listener.wait(timeout: Patience.step) { $0.valueCount == 1 }
            #expect(listener.values == [[7, 7]])
            armed.cancel()
            listener.cancel()
        }
    }
}
