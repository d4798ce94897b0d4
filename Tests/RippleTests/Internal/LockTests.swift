import Dispatch
import Testing

@testable import Ripple

/// The lock every Ripple type holds around its state: critical sections exclude each other across threads,
/// and what a section returns or throws comes out of `withLock`.
@Suite struct LockTests {
    /// A counter guarded by Ripple's lock, as Ripple's types guard their state.
    final class Counter: @unchecked Sendable {
        let lock = Lock()
        nonisolated(unsafe) var value = 0
    }

    enum Refusal: Error { case refused }

    @Test func sectionsOnManyThreadsExcludeEachOther() {
        let counter = Counter()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 {
                counter.lock.withLock { counter.value += 1 }
            }
        }
        #expect(counter.lock.withLock { counter.value } == 80_000)
    }

    @Test func aSectionsResultAndErrorComeOut() {
        let lock = Lock()
        #expect(lock.withLock { 42 } == 42)
        #expect(throws: Refusal.refused) { try lock.withLock { () throws(Refusal) -> Int in throw .refused } }
        #expect(lock.withLock { "free again" } == "free again")
    }
}
