import Dispatch
import Foundation
import RippleTestSupport
import Testing

@testable import Ripple

@Suite("ImmediateScheduler")
struct ImmediateSchedulerTests {
    @Test func runsEverythingAtOnce() {
        let scheduler = ImmediateScheduler.shared
        var log: [Int] = []
        scheduler.schedule { log.append(1) }
        scheduler.schedule(after: scheduler.now.advanced(by: .seconds(10))) { log.append(2) }
        let cancellable = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) { log.append(3) }
        cancellable.cancel()
        #expect(log == [1, 2, 3])
        #expect(scheduler.now.distance(to: scheduler.now) == 0)
        #expect(scheduler.minimumTolerance == .zero)
        typealias Stride = ImmediateScheduler.SchedulerTimeType.Stride
        #expect(Stride.seconds(3) == .zero && Stride.seconds(1.5) == .zero && Stride.milliseconds(1) == .zero)
        #expect(Stride.microseconds(1) == .zero && Stride.nanoseconds(1) == .zero)
        var stride: Stride = 2
        stride += 3
        stride -= 1
        stride *= 2
        #expect(stride.magnitude == 8)
        #expect(Stride(exactly: 4)?.magnitude == 4 && Stride(floatLiteral: 2.9).magnitude == 2)
        #expect(Stride(exactly: UInt64.max) == nil)
    }
}

@Suite("DispatchQueue as a Scheduler")
struct DispatchQueueSchedulerTests {
    @Test func schedulesOnTheQueue() async {
        let queue = DispatchQueue(label: "ripple.test")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let group = DispatchGroup()
        let seen = LockedBox<[Int?]>([])
        group.enter()
        queue.schedule(options: .init(qos: .userInitiated)) {
            seen.withLock { $0.append(DispatchQueue.getSpecific(key: key)) }
            group.leave()
        }
        group.enter()
        queue.schedule(after: queue.now.advanced(by: .milliseconds(5))) {
            seen.withLock { $0.append(DispatchQueue.getSpecific(key: key)) }
            group.leave()
        }
        group.wait()
        #expect(seen.value == [7, 7])
    }

    @Test func repeatingTimerFiresUntilCancelled() {
        let queue = DispatchQueue(label: "ripple.timer")
        let semaphore = DispatchSemaphore(value: 0)
        let count = LockedBox(0)
        let cancellable = queue.schedule(after: queue.now, interval: .milliseconds(1)) {
            count.withLock { $0 += 1 }
            if count.value == 3 { semaphore.signal() }
        }
        semaphore.wait()
        cancellable.cancel()
        queue.sync {}
        let final = count.value
        #expect(final >= 3)
    }

    @Test func timeAndStride() throws {
        typealias Time = DispatchQueue.SchedulerTimeType
        typealias Stride = Time.Stride
        let time = Time(DispatchTime(uptimeNanoseconds: 1_000))
        #expect(time.distance(to: time.advanced(by: .microseconds(2))) == .nanoseconds(2_000))
        #expect(
            time.advanced(by: .nanoseconds(-5_000)).dispatchTime == DispatchTime(uptimeNanoseconds: 1),
            "before the clock's start: Dispatch's earliest time, as in Combine")
        #expect(Stride(.seconds(1)) == 1 && Stride(.milliseconds(1)) == .milliseconds(1))
        #expect(Stride(.microseconds(1)) == .microseconds(1) && Stride(.nanoseconds(1)) == .nanoseconds(1))
        #expect(Stride(.never).magnitude == .max)
        #expect(Stride(floatLiteral: 0.25) == .milliseconds(250) && Stride.seconds(0.25) == .milliseconds(250))
        #expect(Stride(exactly: 3) == .seconds(3) && Stride(exactly: Int.max) == .nanoseconds(.max))
        #expect(Stride(exactly: UInt64.max) == nil)
        #expect(Stride.seconds(Int.max).magnitude == .max && Stride.seconds(-Double.infinity).magnitude == .min)
        #expect(Stride.seconds(Double.nan).magnitude == 0)
        if case .nanoseconds(let value) = Stride.seconds(2).timeInterval { #expect(value == 2_000_000_000) }
        var stride: Stride = 1
        stride += 1
        stride -= 0.5
        #expect(stride.magnitude == 1_500_000_000)
        stride *= 2
        #expect(stride.magnitude == 0, "as in Combine, a product of dispatch intervals is zero")
        #expect((Stride.seconds(3) * .nanoseconds(2)).magnitude == 0)
        let encodedStride = try JSONEncoder().encode([Stride.nanoseconds(7)])
        #expect(String(decoding: encodedStride, as: UTF8.self) == #"[{"_nanoseconds":7}]"#)
        let data = try JSONEncoder().encode([time])
        #expect(try JSONDecoder().decode([Time].self, from: data) == [time])
        #expect(Set([time, time]).count == 1)
        #expect(DispatchQueue.main.minimumTolerance == .zero)
        #expect(DispatchQueue.main.now.dispatchTime.uptimeNanoseconds > 0)
        #expect(time.advanced(by: .seconds(Int.max)).dispatchTime == .distantFuture)
        #expect(time.distance(to: Time(.distantFuture)) == .nanoseconds(.max))
        #expect(Time(.distantFuture).distance(to: time) == .nanoseconds(.max), "too far either way is Int.max")
        #expect(time.distance(to: Time(DispatchTime(uptimeNanoseconds: 400))) == .nanoseconds(-600))
    }
}
