import Testing

@testable import Ripple

@Suite("Filter, TryFilter")
struct FilterTests {
    @Test func filterPassesTheSubscriptionThroughAndAnswersDropsWithOne() {
        let upstream = TransformingNamingPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2), onValue: { _ in .max(4) })
        defer { subscriber.cancel() }
        upstream.filter { $0.isMultiple(of: 2) }.subscribe(subscriber)
        #expect(upstream.base.calls == [.request(.max(2))])
        #expect(upstream.base.send(1) == .max(1))
        #expect(upstream.base.send(2) == .max(4))
        #expect(upstream.base.send(3) == .max(1))
        #expect(upstream.base.send(4) == .max(4))
        upstream.base.send(completion: .failure(.oops))
        #expect(subscriber.events == [.subscription("TestSubscription"), .value(2), .value(4), .failure(.oops)])
        #expect(upstream.base.calls == [.request(.max(2))])
        #expect(upstream.subscriberNames == ["Filter"])
        #expect(upstream.subscribers[0].customMirror.children.isEmpty)
    }

    @Test func filterWithOneAtATimeDemandNeverOverDelivers() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>.oneAtATime()
        defer { subscriber.cancel() }
        upstream.filter { $0 > 2 }.subscribe(subscriber)
        for value in 0..<6 { upstream.send(value) }
        upstream.send(completion: .finished)
        #expect(subscriber.values == [3, 4, 5])
        #expect(subscriber.demandViolations == 0)
        #expect(subscriber.completion == .finished)
    }

    @Test func filterOfFilterFusesIntoOneFilter() {
        let upstream = TransformingNamingPublisher<Int, Never>()
        var calls = 0
        let fused: Publishers.Filter<TransformingNamingPublisher<Int, Never>> =
            upstream
            .filter {
                calls += 1
                return $0.isMultiple(of: 2)
            }
            .filter {
                calls += 1
                return $0.isMultiple(of: 3)
            }
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(10), onValue: { _ in .max(16) })
        defer { subscriber.cancel() }
        fused.subscribe(subscriber)
        var answers: [Subscribers.Demand] = []
        for value in 1...6 { answers.append(upstream.base.send(value)) }
        #expect(answers == [.max(1), .max(1), .max(1), .max(1), .max(1), .max(16)])
        #expect(subscriber.values == [6])
        #expect(calls == 9)
        #expect(upstream.subscriberNames == ["Filter"])
    }

    @Test func tryFilterHasItsOwnSubscription() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(3), onValue: { _ in .max(42) })
        defer { subscriber.cancel() }
        upstream.tryFilter { value in
            if value == 5 { throw TestError.oops }
            return value.isMultiple(of: 2)
        }.mapError(transformingTestError).subscribe(subscriber)
        #expect(upstream.send(1) == .max(1))
        #expect(upstream.send(2) == .max(42))
        #expect(upstream.send(3) == .max(1))
        #expect(upstream.send(4) == .max(42))
        #expect(upstream.calls == [.request(.max(3))])
        #expect(upstream.send(5) == .none)
        #expect(upstream.calls == [.request(.max(3)), .cancel])
        #expect(upstream.send(6) == .none)
        upstream.send(completion: .finished)
        subscriber.request(.max(1000))
        subscriber.cancel()
        #expect(subscriber.events == [.subscription("TryFilter"), .value(2), .value(4), .failure(.oops)])
        #expect(upstream.calls == [.request(.max(3)), .cancel])
    }

    @Test func tryFilterForwardsCompletionsOnceAndDemand() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(5))
        defer { subscriber.cancel() }
        upstream.tryFilter { _ in true }.mapError(transformingTestError).subscribe(subscriber)
        subscriber.request(.max(15))
        upstream.send(completion: .failure(.other))
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("TryFilter"), .failure(.other)])
        #expect(upstream.calls == [.request(.max(5)), .request(.max(15))])
    }

    @Test func tryFilterFusions() throws {
        let upstream = TestPublisher<Int, Never>()
        let fromFilter: Publishers.TryFilter<TestPublisher<Int, Never>> =
            upstream
            .filter { $0 > 0 }
            .tryFilter { value in
                if value == 7 { throw TestError.oops }
                return value.isMultiple(of: 2)
            }
        #expect(try fromFilter.isIncluded(2))
        #expect(try !fromFilter.isIncluded(-2))
        #expect(try !fromFilter.isIncluded(3))
        #expect(throws: TestError.oops) { try fromFilter.isIncluded(7) }

        let filtered: Publishers.TryFilter<TestPublisher<Int, Never>> = fromFilter.filter { $0 < 10 }
        #expect(try filtered.isIncluded(4))
        #expect(try !filtered.isIncluded(12))
        let tried: Publishers.TryFilter<TestPublisher<Int, Never>> = fromFilter.tryFilter { value in
            if value == 8 { throw TestError.other }
            return true
        }
        #expect(try tried.isIncluded(4))
        #expect(throws: TestError.other) { try tried.isIncluded(8) }
        #expect(tried.upstream === upstream && filtered.upstream === upstream)
    }
}

@Suite("CompactMap, TryCompactMap")
struct CompactMapTests {
    @Test func compactMapPassesTheSubscriptionThroughAndAnswersNilWithOne() {
        let upstream = TransformingNamingPublisher<String, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2), onValue: { _ in .max(4) })
        defer { subscriber.cancel() }
        upstream.compactMap { Int($0) }.subscribe(subscriber)
        #expect(upstream.base.send("1") == .max(4))
        #expect(upstream.base.send("a") == .max(1))
        #expect(upstream.base.send("6") == .max(4))
        upstream.base.send(completion: .finished)
        #expect(subscriber.events == [.subscription("TestSubscription"), .value(1), .value(6), .finished])
        #expect(upstream.subscriberNames == ["CompactMap"])
        #expect(upstream.subscribers[0].customMirror.children.isEmpty)
    }

    @Test func compactMapFusions() {
        let upstream = TransformingNamingPublisher<String, Never>()
        let twice: Publishers.CompactMap<TransformingNamingPublisher<String, Never>, Int> =
            upstream
            .compactMap { Int($0) }
            .compactMap { $0 > 0 ? $0 * 10 : nil }
        #expect(twice.transform("3") == 30)
        #expect(twice.transform("-3") == nil)
        #expect(twice.transform("x") == nil)
        let mapped: Publishers.CompactMap<TransformingNamingPublisher<String, Never>, String> =
            upstream
            .compactMap { Int($0) }
            .map { "<\($0)>" }
        #expect(mapped.transform("3") == "<3>")
        #expect(mapped.transform("x") == nil)
        let subscriber = TestSubscriber<String, Never>()
        defer { subscriber.cancel() }
        mapped.subscribe(subscriber)
        upstream.base.send("4")
        #expect(subscriber.values == ["<4>"])
        #expect(upstream.subscriberNames == ["CompactMap"])
    }

    @Test func tryCompactMapHasItsOwnSubscription() {
        let upstream = TestPublisher<String, Never>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2), onValue: { _ in .max(1) })
        defer { subscriber.cancel() }
        upstream.tryCompactMap { string -> Int? in
            if string == "boom" { throw TestError.oops }
            return Int(string)
        }.mapError(transformingTestError).subscribe(subscriber)
        #expect(upstream.send("1") == .max(1))
        #expect(upstream.send("x") == .max(1))
        #expect(upstream.send("boom") == .none)
        #expect(upstream.send("2") == .none)
        #expect(subscriber.events == [.subscription("TryCompactMap"), .value(1), .failure(.oops)])
        #expect(upstream.calls == [.request(.max(2)), .cancel])
    }

    @Test func tryCompactMapFusion() throws {
        let upstream = TestPublisher<String, Never>()
        let fused: Publishers.TryCompactMap<TestPublisher<String, Never>, Int> =
            upstream
            .tryCompactMap { Int($0) }
            .compactMap { value in
                if value == 0 { throw TestError.other }
                return value > 0 ? value : nil
            }
        #expect(try fused.transform("5") == 5)
        #expect(try fused.transform("-5") == nil)
        #expect(try fused.transform("x") == nil)
        #expect(throws: TestError.other) { try fused.transform("0") }
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        fused.mapError(transformingTestError).subscribe(subscriber)
        upstream.send("3")
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("TryCompactMap"), .value(3), .finished])
    }
}
