import Ripple
import RippleTestSupport
import Testing

@testable import RippleLoop

/// A typed error for `perform`.
private struct Refused: Error, Equatable {}

@Suite("EventLoop: Duration helpers", .timeLimit(.minutes(1)))
struct EventLoopDurationTests {
    @Test func durationsBecomeClampedNanoseconds() {
        #expect(Duration.seconds(1).clampedNanoseconds == 1_000_000_000)
        #expect(Duration.milliseconds(250).clampedNanoseconds == 250_000_000)
        #expect(Duration.nanoseconds(5).clampedNanoseconds == 5)
        #expect(Duration.seconds(-3).clampedNanoseconds == 0)
        #expect(Duration.seconds(Int64.max).clampedNanoseconds == Int.max)
    }

    /// Sums past Int64's seconds (a caller's `.seconds(Int64.max)` plus a margin) make `components` trap:
    /// they clamp instead.
    @Test func durationsBeyondInt64SecondsClampWithoutTrapping() {
        #expect((Duration.seconds(Int64.max) + .seconds(1)).clampedNanoseconds == Int.max)
        #expect((Duration.seconds(Int64.min) - .seconds(1)).clampedNanoseconds == 0)
        #expect(Duration.nanoseconds(Int.max).clampedNanoseconds == Int.max)
        #expect((Duration.nanoseconds(Int.max) - .nanoseconds(1)).clampedNanoseconds == Int.max - 1)
        #expect(Duration(secondsComponent: 0, attosecondsComponent: 999_999_999).clampedNanoseconds == 0)
        #expect(Duration(secondsComponent: 2, attosecondsComponent: 1_500_000_000).clampedNanoseconds == 2_000_000_001)
    }

    @Test func performRunsOnTheLoopThreadAndReturnsOrThrows() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        #expect(await loop.perform { loop.isInLoopThread })
        #expect(await loop.perform { 6 * 7 } == 42)
        await #expect(throws: Refused()) {
            try await loop.perform { () throws(Refused) -> Int in throw Refused() }
        }
    }

    /// Resumes once `action` has run on `loop` after `delay`.
    private func marker(on loop: EventLoop, after delay: Duration) async {
        await withCheckedContinuation { continuation in loop.later(delay) { continuation.resume() } }
    }

    @Test func afterRunsOnceAndACancelledOneNever() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let fired = LockedBox<[String]>()
        let kept = loop.after(.milliseconds(10)) { fired.append("kept") }
        let cancelled = loop.after(.milliseconds(40)) { fired.append("cancelled") }
        cancelled.cancel()
        await marker(on: loop, after: .milliseconds(100))
        #expect(fired.value == ["kept"])
        _ = kept
    }

    @Test func everyRepeatsUntilCancelled() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let ticks = LockedBox<[Int]>()
        let counter = LockedBox(0)
        let repeating = loop.every(.milliseconds(5)) {
            ticks.append(
                counter.withLock { value -> Int in
                    value += 1
                    return value
                })
        }
        while ticks.value.count < 3 { await marker(on: loop, after: .milliseconds(5)) }
        repeating.cancel()
        let seen = ticks.value.count
        await marker(on: loop, after: .milliseconds(40))
        #expect(ticks.value.count == seen)
        #expect(ticks.value == Array(1...seen))
    }
}
