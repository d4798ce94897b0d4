import RippleTestSupport
import Testing

@testable import Ripple

@Suite("JoiningRingBuffer")
struct JoiningRingBufferTests {
    /// Counts live instances, to check the buffer releases what it holds.
    final class Tracked {
        static let live = LockedBox<[Int]>([])
        let value: Int
        init(_ value: Int) {
            self.value = value
            Self.live.append(1)
        }
        deinit { Self.live.append(-1) }
    }

    @Test func keepsFirstInFirstOutOrderAcrossGrowthAndWrapAround() {
        let buffer = JoiningRingBuffer<Int>()
        #expect(buffer.isEmpty)
        var expected: [Int] = []
        var next = 0
        // Interleave appends and removals so the head moves around the storage while it grows.
        for round in 0..<40 {
            for _ in 0..<(round % 7 + 1) {
                buffer.append(next)
                expected.append(next)
                next += 1
            }
            for _ in 0..<(round % 5) where !expected.isEmpty {
                #expect(buffer.removeFirst() == expected.removeFirst())
            }
            #expect(buffer.count == expected.count)
        }
        while !expected.isEmpty {
            #expect(buffer.removeFirst() == expected.removeFirst())
        }
        #expect(buffer.isEmpty)
    }

    @Test func detachAllMovesTheValuesOut() {
        let buffer = JoiningRingBuffer<String>()
        for value in ["a", "b", "c"] { buffer.append(value) }
        _ = buffer.removeFirst()
        let detached = buffer.detachAll()
        #expect(buffer.isEmpty && buffer.count == 0)
        #expect(detached.count == 2)
        #expect(detached.removeFirst() == "b")
        #expect(detached.removeFirst() == "c")
        buffer.append("d")
        #expect(buffer.removeFirst() == "d")
    }

    @Test func releasesEverythingItHolds() {
        let before = Tracked.live.value.reduce(0, +)
        do {
            let buffer = JoiningRingBuffer<Tracked>()
            for value in 0..<20 { buffer.append(Tracked(value)) }
            #expect(buffer.removeFirst().value == 0)
            buffer.removeAll()
            #expect(buffer.isEmpty)
            for value in 0..<5 { buffer.append(Tracked(value)) }
        }
        #expect(Tracked.live.value.reduce(0, +) == before)
    }
}
