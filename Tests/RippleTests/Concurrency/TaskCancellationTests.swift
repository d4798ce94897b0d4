import RippleTestSupport
import Testing

@testable import Ripple

@Suite("Task cancellation reaches the upstream")
struct TaskCancellationTests {
    @Test func cancellingTheIteratingTaskCancelsUpstreamSeenByHandleEvents() async {
        let subject = PassthroughSubject<Int, TestError>()
        let requested = AsyncSignal()
        let received = AsyncSignal()
        let cancelled = AsyncSignal()
        let requests = LockedBox<[Subscribers.Demand]>([])
        let observed = subject.handleEvents(
            receiveOutput: { _ in received.signal() },
            receiveCancel: { cancelled.signal() },
            receiveRequest: { demand in
                requests.withLock { $0.append(demand) }
                requested.signal()
            }
        )
        let task = Task { () -> [Int] in
            var values: [Int] = []
            do {
                for try await value in observed.values { values.append(value) }
            } catch {
                Issue.record("unexpected failure \(error)")
            }
            return values
        }
        await requested.wait()
        subject.send(1)
        await received.wait()
        task.cancel()
        await cancelled.wait()
        subject.send(2)
        let values = await task.value
        #expect(values == [1])
        #expect(requests.value.allSatisfy { $0 == .max(1) }, "values are requested one at a time")
    }

    @Test func cancellingAnAwaitedFirstValueCancelsUpstream() async {
        let subject = PassthroughSubject<Int, Never>()
        let requested = AsyncSignal()
        let cancelled = AsyncSignal()
        let observed = subject.handleEvents(
            receiveCancel: { cancelled.signal() },
            receiveRequest: { _ in requested.signal() }
        )
        let task = Task { try await observed.firstValue }
        await requested.wait()
        task.cancel()
        await cancelled.wait()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
    }
}
