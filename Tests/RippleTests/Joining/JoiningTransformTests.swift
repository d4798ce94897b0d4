import Testing

@testable import Ripple

@Suite("combineLatest and zip with a transform")
struct JoiningTransformTests {
    @Test func combineLatestTransforms() {
        let a = PassthroughSubject<Int, TestError>()
        let b = PassthroughSubject<Int, TestError>()
        let c = PassthroughSubject<Int, TestError>()
        let d = PassthroughSubject<Int, TestError>()
        let two = TestSubscriber<Int, TestError>()
        defer { two.cancel() }
        let three = TestSubscriber<Int, TestError>()
        defer { three.cancel() }
        let four = TestSubscriber<Int, TestError>()
        defer { four.cancel() }
        a.combineLatest(b) { $0 * 10 + $1 }.subscribe(two)
        a.combineLatest(b, c) { $0 * 100 + $1 * 10 + $2 }.subscribe(three)
        a.combineLatest(b, c, d) { $0 * 1000 + $1 * 100 + $2 * 10 + $3 }.subscribe(four)
        a.send(1)
        b.send(2)
        c.send(3)
        d.send(4)
        a.send(5)
        #expect(two.values == [12, 52])
        #expect(three.values == [123, 523])
        #expect(four.values == [1234, 5234])
        a.send(completion: .failure(.oops))
        #expect(two.completion == .failure(.oops))
        #expect(four.completion == .failure(.oops))
    }

    @Test func zipTransforms() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<String, Never>()
        let c = PassthroughSubject<Int, Never>()
        let d = PassthroughSubject<Int, Never>()
        let two = TestSubscriber<String, Never>()
        defer { two.cancel() }
        let three = TestSubscriber<String, Never>()
        defer { three.cancel() }
        let four = TestSubscriber<Int, Never>.oneAtATime()
        defer { four.cancel() }
        a.zip(b) { "\($0)\($1)" }.subscribe(two)
        a.zip(b, c) { "\($0)\($1)\($2)" }.subscribe(three)
        a.zip(c, d, c) { $0 + $1 + $2 + $3 }.subscribe(four)
        a.send(1)
        a.send(2)
        b.send("x")
        c.send(10)
        d.send(100)
        b.send("y")
        #expect(two.values == ["1x", "2y"])
        #expect(three.values == ["1x10"])
        #expect(four.values == [121])
        #expect(four.demandViolations == 0)
        a.send(completion: .finished)
        #expect(two.completion == .finished)
    }
}
