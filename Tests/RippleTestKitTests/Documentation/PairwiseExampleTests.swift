import RippleTestKit
import Testing

/// The tests of the article "Testing a custom operator", as the article shows them.
@Suite struct PairwiseExampleTests {
    @Test func pairsConsecutiveValues() {
        let subscriber = TestSubscriber<[Int], Never>()
        [1, 2, 3, 4].publisher.pairwise().map { [$0.0, $0.1] }.subscribe(subscriber)
        #expect(subscriber.values == [[1, 2], [2, 3], [3, 4]])
        #expect(subscriber.completion == .finished)
    }

    @Test func asksUpstreamForOneMoreInPlaceOfTheFirstValue() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>(initialDemand: .max(1))
        upstream.pairwise().map { [$0.0, $0.1] }.subscribe(subscriber)
        #expect(upstream.calls == [.request(.max(1))])
        #expect(upstream.send(1) == .max(1))  // no pair yet: one more in place of the first value
        #expect(upstream.send(2) == .none)  // the pair took the subscriber's one request
        #expect(subscriber.values == [[1, 2]])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func keepsTheReactiveStreamsRules() async throws {
        try await PublisherRuleChecker().check { (1...10).publisher.pairwise() }.requireConformance()
    }

    @Test func pairsTheValuesOfATimedSourceInVirtualTime() {
        let scheduler = VirtualTimeScheduler()
        let subscriber = TestSubscriber<[Int], Never>()
        defer { subscriber.cancel() }
        Publishers.every(.seconds(1), on: scheduler).scan(0) { count, _ in count + 1 }
            .pairwise().map { [$0.0, $0.1] }.subscribe(subscriber)
        scheduler.advance(by: .seconds(3))
        #expect(subscriber.values == [[1, 2], [2, 3]])
    }
}
