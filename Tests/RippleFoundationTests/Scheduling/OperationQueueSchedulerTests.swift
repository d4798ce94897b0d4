import Foundation
import Ripple
import RippleFoundation
import Testing

/// `OperationQueue` as a `Scheduler` (real time, loose bounds).
@Suite("OperationQueue scheduler")
struct OperationQueueSchedulerTests {
    @Test func runsWorkNowLaterAndRepeatedly() async {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let events = Collected<String>()
        let start = queue.now
        queue.schedule { events.append("now") }
        queue.schedule(after: start.advanced(by: .milliseconds(40))) { events.append("later") }
        let repeating = queue.schedule(after: start.advanced(by: 0.01), interval: .milliseconds(10)) {
            events.append("tick")
        }
        #expect(await events.wait(for: 1))
        #expect(events.values.first == "now")
        #expect(await events.wait { $0.contains("later") })
        #expect(queue.now.date.timeIntervalSince(start.date) >= 0.035)
        #expect(await events.wait { $0.filter { $0 == "tick" }.count >= 3 })
        repeating.cancel()
        // The repetition lives as one pending operation in the queue: once the queue is empty (a tick under
        // way has ended, the cancelled operation has left), no tick can follow.
        #expect(await queue.emptied(), "no tick after cancel: nothing left in the queue")
        #expect(queue.operationCount == 0)
    }

    @Test func delayedWorkIsAnOperationOfTheQueueFromTheStart() async {
        let queue = OperationQueue()
        let events = Collected<String>()
        queue.schedule(after: queue.now.advanced(by: 30)) { events.append("never") }
        #expect(queue.operationCount == 1, "the delayed work waits in the queue")
        queue.cancelAllOperations()
        // Foundation's own wait for the queue to empty (the cancelled operation leaves it at once).
        #expect(await queue.emptied())
        #expect(queue.operationCount == 0)
        #expect(events.values.isEmpty)
    }

    @Test func cancellingAllOperationsEndsARepetition() async {
        let queue = OperationQueue()
        let events = Collected<String>()
        let repeating = queue.schedule(after: queue.now, interval: .milliseconds(10)) { events.append("tick") }
        #expect(await events.wait(for: 2))
        queue.cancelAllOperations()
        // Also when the cancel comes while a tick runs (its next operation not yet in the queue): the queue
        // empties, and an empty queue runs nothing more.
        #expect(await queue.emptied(), "no tick after cancelAllOperations: nothing left in the queue")
        let ticks = events.values.count
        #expect(ticks >= 2)
        #expect(queue.operationCount == 0)
        repeating.cancel()
    }

    /// Foundation caches an operation's readiness; a read made before a delayed operation was due, stored after
    /// the due notification's answer, left it in the queue for ever (seen: the queue did not empty within 10 s
    /// of a repetition's cancel, 1 run in ~760 under load). Here each tick has another thread cancel the
    /// repetition at once, while the queue's thread goes on to add the next operation: the cancel lands before,
    /// during or after that, and as the next operation's timer fires (1 ms).
    @Test func aCancelRacingTheNextTicksAdditionLeavesNothingInTheQueue() async {
        final class Holder: @unchecked Sendable {
            let lock = NSLock()
            var cancellable: (any Cancellable)?
            func cancel() { lock.withLock { cancellable }?.cancel() }
        }
        for round in 0..<300 {
            let queue = OperationQueue()
            let holder = Holder()
            let ticks = Collected<String>()
            let repeating = queue.schedule(after: queue.now, interval: .milliseconds(1)) {
                ticks.append("tick")
                DispatchQueue.global().async {
                    if round.isMultiple(of: 2) { holder.cancel() } else { queue.cancelAllOperations() }
                }
            }
            holder.lock.withLock { holder.cancellable = repeating }
            guard await ticks.wait(for: 1), await queue.emptied() else {
                Issue.record("round \(round): \(queue.operationCount) operation(s) left after the cancel")
                return
            }
            repeating.cancel()
        }
    }

    @Test func cancellingAllOperationsWhileATickRunsEndsTheRepetition() async {
        let queue = OperationQueue()
        let events = Collected<String>()
        let release = DispatchSemaphore(value: 0)
        let repeating = queue.schedule(after: queue.now, interval: .milliseconds(10)) {
            events.append("tick")
            if events.values.count == 1 { release.wait() }  // the first tick runs until the test lets it end
        }
        #expect(await events.wait(for: 1))
        queue.cancelAllOperations()  // the first tick's operation is executing: its next one is not queued yet
        release.signal()
        #expect(await queue.emptied(), "the tick under way adds no next one")
        #expect(events.values == ["tick"])
        repeating.cancel()
    }

    @Test func operatorsRunOnTheQueue() async {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let values = Collected<Int>()
        let readings = PassthroughSubject<Int, Never>()
        let cancellable =
            readings
            .receive(on: queue)
            .debounce(for: .milliseconds(50), scheduler: queue)
            .sink { values.append($0) }
        for reading in 1...5 { readings.send(reading) }
        #expect(await values.wait(for: 1))
        // Every debounce timer of the burst is an operation in the queue: once it is empty, all have fired.
        #expect(await queue.emptied())
        #expect(values.values == [5], "one burst, its last value")
        cancellable.cancel()
    }

    @Test func timeTypeIsItsOwn() throws {
        let time = OperationQueue.SchedulerTimeType(Date(timeIntervalSinceReferenceDate: 10))
        #expect(time.advanced(by: .seconds(2)).date.timeIntervalSinceReferenceDate == 12)
        let encoded = try JSONEncoder().encode(OperationQueue.SchedulerTimeType.Stride(1.5))
        #expect(String(decoding: encoded, as: UTF8.self) == #"{"magnitude":1.5}"#)
    }
}

/// A queue that records the operations added to it.
private final class RecordingQueue: OperationQueue, @unchecked Sendable {
    private let lock = NSLock()
    private var added: [Operation] = []

    var operationsAdded: [Operation] { lock.withLock { added } }

    override func addOperation(_ operation: Operation) {
        lock.withLock { added.append(operation) }
        super.addOperation(operation)
    }
}

extension OperationQueueSchedulerTests {
    @Test func eachScheduleAddsOneOperation() async throws {
        let queue = RecordingQueue()
        let events = Collected<String>()
        queue.schedule { events.append("now") }
        #expect(queue.operationsAdded.count == 1)
        #expect(queue.operationsAdded.first is BlockOperation)
        queue.schedule(after: queue.now.advanced(by: 0.05)) { events.append("later") }
        #expect(queue.operationsAdded.count == 2)
        let delayed = try #require(queue.operationsAdded.last)
        #expect(!(delayed is BlockOperation))
        #expect(delayed is any Cancellable)
        #expect(!delayed.isReady, "not ready before its time")
        #expect(await events.wait(for: 2))
        #expect(events.values == ["now", "later"])
    }
}
