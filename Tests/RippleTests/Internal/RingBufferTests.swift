import Testing

@testable import Ripple

@Suite("RingBuffer")
struct RingBufferTests {
    @Test func fifoAcrossGrowthAndWrapAround() {
        var buffer = RingBuffer<Int>()
        #expect(buffer.isEmpty)
        #expect(buffer.popFirst() == nil)
        #expect(buffer.popLast() == nil)
        var expected: [Int] = []
        for round in 0..<50 {
            for value in 0..<(round % 7 + 1) {
                buffer.append(round * 10 + value)
                expected.append(round * 10 + value)
            }
            if round % 3 == 0, let popped = buffer.popFirst() {
                #expect(popped == expected.removeFirst())
            }
        }
        #expect(Array(buffer) == expected)
        #expect(buffer.first == expected.first)
        #expect(buffer.popLast() == expected.popLast())
        #expect(buffer.count == expected.count)
        buffer.removeAll()
        #expect(buffer.isEmpty)
        buffer.append(1)
        #expect(Array(buffer) == [1])
    }
}
