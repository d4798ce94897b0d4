import Foundation
import Ripple
import RippleFoundation
import Testing

/// `RunLoop` as a `Scheduler`, on a thread that runs its run loop (real time, loose bounds).
@Suite("RunLoop scheduler")
struct RunLoopSchedulerTests {
    @Test func runsWorkNowLaterAndRepeatedlyOnTheRunLoopsThread() async {
        let thread = RunLoopThread()
        defer { thread.stop() }
        let scheduler = thread.runLoop
        let events = Collected<String>()
        let runLoops = Collected<Bool>()
        let start = scheduler.now
        scheduler.schedule {
            events.append("now")
            runLoops.append(RunLoop.current === scheduler)
        }
        scheduler.schedule(after: start.advanced(by: .milliseconds(50))) { events.append("later") }
        let repeating = scheduler.schedule(after: start.advanced(by: 0.01), interval: .milliseconds(10)) {
            events.append("tick")
        }
        #expect(await runLoops.wait(for: 1))
        #expect(runLoops.values == [true], "the work runs on the run loop's thread")
        let sawLater = await events.wait { $0.contains("later") }
        #expect(sawLater)
        // No order between "now" and "later" is asserted: a run loop starved for longer than the delay
        // (a loaded machine) fires the due timer in the same pass as the performed block, as Foundation's
        // run loop may.
        #expect(events.values.contains("now"))
        #expect(scheduler.now.date.timeIntervalSince(start.date) >= 0.045)
        repeating.cancel()
        await thread.flush()  // a tick under way when the timer was invalidated has ended
        let ticks = events.values.filter { $0 == "tick" }.count
        #expect(ticks >= 2)
        // Real time (a run loop's timer runs on the real clock), measured on the run loop: by the time a
        // timer due 60 ms on fires, the repeating one (10 ms) would have fired had it not stopped.
        await thread.passes(0.06)
        #expect(events.values.filter { $0 == "tick" }.count == ticks, "no tick after cancel")
    }

    @Test func operatorsRunOnTheRunLoop() async {
        let thread = RunLoopThread()
        defer { thread.stop() }
        let values = Collected<Int>()
        let cancellable = [1, 2, 3].publisher
            .delay(for: .milliseconds(20), scheduler: thread.runLoop)
            .receive(on: thread.runLoop)
            .sink { values.append($0) }
        #expect(await values.wait(for: 3))
        #expect(values.values == [1, 2, 3])
        cancellable.cancel()
    }

    @Test func timeTypeAndStrideMatchCombines() throws {
        typealias Time = RunLoop.SchedulerTimeType
        let date = Date(timeIntervalSinceReferenceDate: 1_000)
        let time = Time(date)
        #expect(time.advanced(by: 2.5).date == date + 2.5)
        #expect(time.distance(to: Time(date + 4)) == .seconds(4))
        #expect(Time.Stride.milliseconds(1_500).timeInterval == 1.5)
        #expect(Time.Stride.microseconds(250).magnitude == 0.000_25)
        #expect(Time.Stride.nanoseconds(5).magnitude == 0.000_000_005)
        #expect(Time.Stride.seconds(0.25) == 0.25)
        let three: Time.Stride = 3
        #expect(three.timeInterval == 3)
        #expect(Time.Stride(exactly: 7)?.timeInterval == 7)
        #expect((Time.Stride(2) * 3 + 1 - 0.5).timeInterval == 6.5)
        #expect(Time.Stride(1) < Time.Stride(2))
        let encoded = try JSONEncoder().encode(time)
        #expect(String(decoding: encoded, as: UTF8.self) == #"{"date":1000}"#)
        #expect(try JSONDecoder().decode(Time.self, from: encoded) == time)
        #expect(RunLoop.main.minimumTolerance == 0)
    }
}
