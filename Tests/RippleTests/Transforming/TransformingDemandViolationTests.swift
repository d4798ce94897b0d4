import Testing

@testable import Ripple

@Suite("Transforming: request(.none) traps")
struct TransformingDemandViolationTests {
    @Test func stepSubscriptionTraps() async {
        await #expect(processExitsWith: .failure) {
            let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
            TestPublisher<Int, Never>().tryFilter { _ in true }.mapError(transformingTestError).subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
    }

    @Test func theOtherFilterShapedOperatorsTrapToo() async {
        var result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
            TestPublisher<Int, Never>().tryCompactMap { $0 }.mapError(transformingTestError).subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
        expectTrap(result, saying: TrapMessage.zeroDemand)
        result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
            TestPublisher<Int, Never>().tryRemoveDuplicates { $0 == $1 }.mapError(transformingTestError)
                .subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
        expectTrap(result, saying: TrapMessage.zeroDemand)
    }

    @Test func reduceSubscriptionTraps() async {
        await #expect(processExitsWith: .failure) {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            TestPublisher<Int, Never>().count().subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
    }

    @Test func ownSubscriptionsTrap() async {
        await #expect(processExitsWith: .failure) {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            TestPublisher<Int, TestError>().replaceError(with: 0).subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
        await #expect(processExitsWith: .failure) {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            TestPublisher<Int, Never>().replaceEmpty(with: 0).subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
        await #expect(processExitsWith: .failure) {
            let subscriber = TestSubscriber<[Int], Never>(initialDemand: nil)
            TestPublisher<Int, Never>().collect(2).subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
    }

    @Test func negativeOutputBoundsTrap() async {
        await #expect(processExitsWith: .failure) {
            _ = Publishers.Output(upstream: TestPublisher<Int, Never>(), range: -1..<4)
        }
    }

    @Test func aNegativePrefixLengthTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = TestPublisher<Int, Never>().prefix(-1)
        }
        expectTrap(result, saying: "prefix(_:) needs a length of zero or more")
    }
}
