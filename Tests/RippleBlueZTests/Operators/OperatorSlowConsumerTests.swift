import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleTestKit
import RippleTestSupport
import Testing

/// The pipeline operators (`Publisher+Bluetooth`) under a subscriber that asks for one value at a time.
/// Their policy, as these tests pin it:
/// - The operation operators (`connect(on:)`, `read`, `write`, `writeAndListen`, `disconnect`) are
///   `flatMap(maxPublishers: .max(1))`, as in Combine: they take one upstream peripheral at a time, run its
///   operation at once whatever the demand, hold its result until the subscriber asks for it, and ask the
///   upstream for the next peripheral when the operation has ended. Nothing is lost; results come in the
///   upstream's order; the results held are at most one per upstream value taken.
/// - `listen(to:)` subscribes to each peripheral's listener, which keeps a buffer of its own (`buffering`,
///   drops counted in `statistics`); the merge asks each listener for one notification ahead, so under slow
///   demand one more notification waits per listener, besides its buffer.
@Suite(.timeLimit(Patience.test)) struct OperatorSlowConsumerTests {
    private let sensor = CharacteristicReference(Lab.sensor)

    @Test func aReadOperatorReadsEachPeripheralInTurnAndHoldsItsValueForTheSubscriber() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let (asks, asked) = AsyncStream.makeStream(of: Subscribers.Demand.self)
            let upstream = TestPublisher<Peripheral, BluetoothError>(onRequest: { asked.yield($0) })
            var demands = asks.makeAsyncIterator()
            let slow = TestSubscriber(upstream.read(sensor), demand: .none)
            #expect(await watched("the operator's first request") { await demands.next() } == .max(1))
            try await peripheral.writeValue([1], to: sensor)
            _ = upstream.send(peripheral)
            // The read ran, though nobody asked for its value: the operator asks for the next peripheral.
            #expect(await watched("the request after the first read") { await demands.next() } == .max(1))
            try await peripheral.writeValue([2], to: sensor)
            _ = upstream.send(peripheral)
            #expect(await watched("the request after the second read") { await demands.next() } == .max(1))
            upstream.send(completion: .finished)
            await fixture.settle()
            #expect(slow.values.isEmpty)
            #expect(slow.completion == nil)
            // Each value read when its turn came, in order; the end after the last.
            slow.request(.max(1))
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 1 }
            #expect(slow.values == [[1]])
            #expect(slow.completion == nil)
            slow.request(.max(1))
            try await slow.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(slow.values == [[1], [2]])
            #expect(slow.completion == .finished)
            #expect(upstream.calls == [.request(.max(1)), .request(.max(1)), .request(.max(1))])
            asked.finish()
            upstream.detachSubscribers()
        }
    }

    @Test func aListenOperatorHoldsOneNotificationAheadAndItsListenerDropsTheOldest() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let statistics = NotificationStatistics()
            let drops = TestSubscriber(statistics.drops.setFailureType(to: BluetoothError.self))
            let slow = TestSubscriber(
                Just(peripheral).setFailureType(to: BluetoothError.self)
                    .listen(to: sensor, buffering: .init(capacity: 2, policy: .dropOldest), statistics: statistics),
                demand: .none)
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            // 1 waits in the merge; 2, 3, 4 are pushed out of the listener's buffer of two by 5 and 6.
            try await fixture.notify(Lab.sensor, (1...6).map { [UInt8($0)] })
            try await drops.wait(timeout: Patience.step) { $0.values.last == 3 }
            await fixture.settle()
            #expect(slow.values.isEmpty)
            #expect(statistics.received == 6)
            #expect(statistics.delivered == 1)
            for count in 1...3 {
                slow.request(.max(1))
                try await slow.wait(timeout: Patience.step) { $0.valueCount == count }
            }
            await fixture.settle()
            #expect(slow.values == [[1], [5], [6]])
            #expect(statistics.dropped == 3)
            #expect(statistics.delivered == 3)
            #expect(slow.completion == nil)
            slow.cancel()
            drops.cancel()
        }
    }
}
