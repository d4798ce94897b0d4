import Testing

@testable import Ripple

@Suite("Comparison, TryComparison (min, max)")
struct ComparisonTests {
    struct Item: Equatable {
        let key: Int
        let id: String
    }

    @Test func minAndMax() {
        let max = runReduction([3, 9, 1, 9, 4]) { $0.max() }
        #expect(max.beforeRequest == [.subscription("Comparison")])
        #expect(max.events == [.subscription("Comparison"), .value(9), .finished])
        #expect(max.calls == [.request(.unlimited)])
        #expect(runReduction([3, 9, 1, 4]) { $0.min() }.events == [.subscription("Comparison"), .value(1), .finished])
        #expect(runReduction([]) { $0.max() }.events == [.subscription("Comparison"), .finished])
        #expect(
            runReduction([1], then: .failure(.oops)) { $0.min() }.events == [
                .subscription("Comparison"), .failure(.oops),
            ])
    }

    @Test func tiesKeepTheFirstValue() {
        let items = [
            Item(key: 2, id: "a"), Item(key: 3, id: "b"), Item(key: 1, id: "c"), Item(key: 3, id: "d"),
            Item(key: 1, id: "e"),
        ]
        func run<P: Publisher>(_ make: (TestPublisher<Item, Never>) -> P) -> [P.Output]
        where P.Failure == Never, P.Output: Equatable {
            let upstream = TestPublisher<Item, Never>()
            let subscriber = TestSubscriber<P.Output, Never>()
            make(upstream).subscribe(subscriber)
            items.forEach { upstream.send($0) }
            upstream.send(completion: .finished)
            return subscriber.values
        }
        #expect(run { $0.max { $0.key < $1.key } } == [Item(key: 3, id: "b")])
        #expect(run { $0.min { $0.key < $1.key } } == [Item(key: 1, id: "c")])
    }

    @Test func tryMinAndTryMax() {
        #expect(
            runReduction([3, 9, 1]) { $0.tryMax(by: <).mapError(transformingTestError) }.events
                == [.subscription("TryComparison"), .value(9), .finished])
        #expect(
            runReduction([3, 9, 1]) { $0.tryMin(by: <).mapError(transformingTestError) }.events
                == [.subscription("TryComparison"), .value(1), .finished])
        let thrown = runReduction([3, 9, 1]) { upstream in
            upstream.tryMax { lhs, rhs -> Bool in
                if rhs == 9 { throw TestError.oops }
                return lhs < rhs
            }.mapError(transformingTestError)
        }
        #expect(thrown.beforeRequest == [.subscription("TryComparison"), .failure(.oops)])
        #expect(thrown.calls == [.request(.unlimited), .cancel])
        #expect(
            runReduction([], then: .failure(.other)) { $0.tryMin(by: <).mapError(transformingTestError) }.events
                == [.subscription("TryComparison"), .failure(.other)])
    }

    @Test func minByReversesTheOrdering() throws {
        let upstream = TestPublisher<Int, Never>()
        #expect(upstream.max(by: <).areInIncreasingOrder(1, 2))
        #expect(upstream.min(by: <).areInIncreasingOrder(2, 1))
        #expect(upstream.min().areInIncreasingOrder(2, 1))
        #expect(try upstream.tryMin(by: <).areInIncreasingOrder(2, 1))
        #expect(try upstream.tryMax(by: <).areInIncreasingOrder(1, 2))
    }
}
