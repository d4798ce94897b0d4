import Foundation
import Ripple
import RippleFoundation
import RippleTestKit
import Testing

/// `Timer.publish(every:on:in:)`: a connectable publisher of dates on a run loop. These tests run in real
/// time with loose bounds (the one exception to the virtual-time rule): a run loop's timer cannot run on
/// virtual time. "Nothing more happens" is checked on the run loop's own timeline (RunLoopThread.passes),
/// never by a sleep of the test's.
@Suite("Timer.publish")
struct TimerPublishTests {
    @Test func autoconnectTicksOnTheRunLoopUntilCancelled() async {
        let thread = RunLoopThread()
        defer { thread.stop() }
        let ticks = Collected<Date>()
        let start = Date()
        let cancellable = Timer.publish(every: 0.02, on: thread.runLoop, in: .common)
            .autoconnect()
            .sink { ticks.append($0) }
        #expect(await ticks.wait(for: 5))
        cancellable.cancel()
        let elapsed = Date().timeIntervalSince(start)
        let dates = ticks.values
        #expect(elapsed >= 0.08, "five ticks 20 ms apart take at least about 100 ms")
        #expect(dates.allSatisfy { $0 >= start })
        #expect(zip(dates, dates.dropFirst()).allSatisfy { $0 <= $1 }, "ticks come in order")
        await thread.flush()  // a tick under way at the cancel has ended
        let afterCancel = ticks.values.count
        // Five periods on, on the run loop's own timeline (see RunLoopThread.passes).
        await thread.passes(0.1)
        #expect(ticks.values.count == afterCancel, "no tick after cancel")
    }

    @Test func nothingTicksBeforeConnectAndNothingAfterTheConnectionIsCancelled() async {
        let thread = RunLoopThread()
        defer { thread.stop() }
        let timer = Timer.publish(every: 0.02, on: thread.runLoop, in: .default)
        let ticks = Collected<Date>()
        let subscription = timer.sink { ticks.append($0) }
        // Four periods on the run loop's own timeline (see RunLoopThread.passes): a timer started by the
        // subscription would have ticked.
        await thread.passes(0.08)
        #expect(ticks.values.isEmpty, "a timer publisher ticks only once connected")
        let connection = timer.connect()
        #expect(await ticks.wait(for: 2))
        connection.cancel()
        await thread.flush()  // a tick under way at the cancel has ended
        let afterCancel = ticks.values.count
        await thread.passes(0.1)
        #expect(ticks.values.count == afterCancel, "cancelling the connection detaches every subscriber")
        subscription.cancel()
    }

    @Test func aSubscriberWithoutDemandMissesTheTicks() async {
        let thread = RunLoopThread()
        defer { thread.stop() }
        let timer = Timer.publish(every: 0.02, on: thread.runLoop, in: .common)
        let limited = TestSubscriber<Date, Never>(initialDemand: .max(2))
        timer.subscribe(limited)
        let witness = Collected<Date>()
        let witnessing = timer.sink { witness.append($0) }
        let connection = timer.connect()
        #expect(await witness.wait(for: 5))
        connection.cancel()
        #expect(limited.values.count == 2, "two requested, two received, the others missed")
        witnessing.cancel()
    }

    @Test func thePublisherKeepsItsParametersAndIgnoresTolerance() {
        let timer = Timer.publish(every: 2.5, tolerance: 0.5, on: .main, in: .common)
        #expect(timer.interval == 2.5)
        #expect(timer.tolerance == nil, "Combine ignores the tolerance given to publish")
        #expect(timer.runLoop === RunLoop.main)
        #expect(timer.mode == .common)
        let direct = Timer.TimerPublisher(interval: 1, tolerance: 0.1, runLoop: .main, mode: .default)
        #expect(direct.tolerance == 0.1)
    }
}

extension TimerPublishTests {
    @Test func subscriptionsAndConnectionsDoNotDescribeThemselves() throws {
        let timer = Timer.publish(every: 10, on: .main, in: .default)
        let connection = timer.connect()
        defer { connection.cancel() }
        #expect(!(connection is any CustomStringConvertible))
        #expect(!(connection is any CustomReflectable))
        let recorder = TestSubscriber<Date, Never>(initialDemand: .max(1))
        timer.subscribe(recorder)
        let subscription = try #require(recorder.subscription)
        #expect(!(subscription is any CustomStringConvertible))
        #expect(!(subscription is any CustomPlaygroundDisplayConvertible))
        #expect(!(subscription is any CustomReflectable))
        recorder.cancel()
    }
}
