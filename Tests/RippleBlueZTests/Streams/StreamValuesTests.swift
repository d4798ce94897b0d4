import Ripple
import RippleLoop
import RippleTestSupport
import Testing

@testable import RippleBlueZ

/// The stream classes through `values`: a `for await` loop whose body itself awaits loses nothing within
/// an event stream's buffer, and ends on a state stream's latest value. The test holds the loop's body
/// (it awaits a gate the test opens) while events keep arriving: no sleeps.
@Suite(.timeLimit(Patience.test)) struct StreamValuesTests {
    @Test func anAwaitingLoopOverAnEventStreamSeesEveryValueWithinItsBuffer() async {
        let events = EventSubject<Int, BluetoothError>(
            buffering: EventBuffering(capacity: 64, policy: .failStream), name: "events")
        let consumer = GatedConsumer(events.values)
        await consumer.waitUntilSubscribed()
        events.send(0)
        #expect(await consumer.next() == 0)
        // The loop's body is awaiting the gate: these wait in the buffer.
        for value in 1...10 { events.send(value) }
        var seen = [0]
        for _ in 1...10 {
            consumer.open()
            seen.append(await consumer.next() ?? -1)
            events.send(seen.count + 9)
        }
        events.send(completion: .finished)
        for _ in 0..<10 {
            consumer.open()
            seen.append(await consumer.next() ?? -1)
        }
        consumer.open()
        #expect(await consumer.next() == nil)
        #expect(seen == Array(0...20))
        #expect(events.statistics.dropped == 0)
        #expect(events.statistics.delivered == 21)
    }

    @Test func anAwaitingLoopOverAnEventStreamSeesTheDropsOfItsPolicyExactly() async {
        let events = EventSubject<Int, BluetoothError>(
            buffering: EventBuffering(capacity: 2, policy: .dropOldest), name: "events")
        let consumer = GatedConsumer(events.values)
        await consumer.waitUntilSubscribed()
        events.send(0)
        #expect(await consumer.next() == 0)
        for value in 1...4 { events.send(value) }
        consumer.open()
        #expect(await consumer.next() == 3)
        events.send(5)
        consumer.open()
        #expect(await consumer.next() == 4)
        consumer.open()
        #expect(await consumer.next() == 5)
        #expect(events.statistics.dropped == 2)
        #expect(events.statistics.received == 6)
        events.send(completion: .finished)
        consumer.open()
        #expect(await consumer.next() == nil)
    }

    @Test func anAwaitingLoopOverAStateStreamEndsOnTheLatestValue() async {
        let state = StateSubject<Int, Never>(0)
        let consumer = GatedConsumer(state.values)
        await consumer.waitUntilSubscribed()
        #expect(await consumer.next() == 0)
        for value in 1...3 { state.send(value) }
        consumer.open()
        #expect(await consumer.next() == 3)
        state.send(4)
        state.send(completion: .finished)
        consumer.open()
        #expect(await consumer.next() == 4)
        consumer.open()
        #expect(await consumer.next() == nil)
    }

    @Test func anEventStreamOnALoopDeliversEverythingInOrderOnTheLoopThreadToAnAwaitingLoop() async throws {
        let thread = try EventLoopThread(name: "event-stream-test")
        let loop = thread.loop
        // Each value costs this task two trips through the cooperative pool's queue (the resumption and the
        // yield): in a full parallel run under load a trip can take tens of milliseconds, so the count is
        // kept to what still makes a backlog (issue 19: the "rare hang" was this test at 10,000 values
        // outlasting its time limit while progressing; the monitor tells a slow run from a stalled one).
        let count = 2_000
        let events = EventSubject<Int, BluetoothError>(
            buffering: EventBuffering(capacity: 2 * count, policy: .failStream), context: .loop(loop), name: "events")
        let onLoop = SlowSubscriber<Int, BluetoothError>(isExpectedThread: { loop.isInLoopThread })
        events.subscribe(onLoop)
        var iterator = events.values.makeAsyncIterator()
        // A stall reports where it stopped and whether the loop and the pool still answered.
        let monitor = StallMonitor(expected: count, probes: [.loop { loop.schedule($0) }, .cooperativePool])
        // The producer runs on the loop while this task reads one value at a time and yields in between.
        loop.schedule {
            for value in 0..<count {
                events.send(value)
                if value % 100 == 0 { onLoop.release(100) }
            }
            events.send(completion: .finished)
        }
        var seen: [Int] = []
        while let value = try await iterator.next() {
            seen.append(value)
            monitor.advance()
            await Task.yield()
        }
        let stalls = monitor.finish()
        #expect(seen.count == count, "stalls: \(stalls)")
        #expect(seen == Array(0..<count))
        onLoop.release(1)
        await loop.perform {}
        #expect(onLoop.values == Array(0..<count))
        #expect(onLoop.deliveriesOffThread == 0)
        #expect(events.statistics.dropped == 0)
        thread.stop()
    }

    @Test func aStateStreamOnALoopNeverEndsOnAStaleValue() async throws {
        let thread = try EventLoopThread(name: "state-stream-test")
        let loop = thread.loop
        let state = StateSubject<Int, Never>(0, context: .loop(loop))
        let watcher = SlowSubscriber<Int, Never>(isExpectedThread: { loop.isInLoopThread })
        state.subscribe(watcher)
        var iterator = state.values.makeAsyncIterator()
        // A stall reports where it stopped and whether the loop and the pool still answered.
        let monitor = StallMonitor(probes: [.loop { loop.schedule($0) }, .cooperativePool])
        loop.schedule {
            for value in 1...10_000 {
                state.send(value)
                if value % 1_000 == 0 { watcher.release() }
            }
            state.send(completion: .finished)
        }
        var seen: [Int] = []
        while let value = await iterator.next() {
            seen.append(value)
            monitor.advance()
            await Task.yield()
        }
        let stalls = monitor.finish()
        #expect(seen.last == 10_000, "stalls: \(stalls)")
        #expect(seen == seen.sorted() && Set(seen).count == seen.count)
        watcher.release()
        await loop.perform {}
        #expect(watcher.values.last == 10_000)
        #expect(watcher.deliveriesOffThread == 0)
        thread.stop()
    }
}
