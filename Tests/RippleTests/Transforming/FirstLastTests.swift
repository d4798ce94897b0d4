import Testing

@testable import Ripple

@Suite("First, FirstWhere, TryFirstWhere")
struct FirstTests {
    @Test func firstCancelsUpstreamOnTheFirstValueAndWaitsForDemand() {
        let run = runReduction([1, 2]) { $0.first() }
        #expect(run.beforeRequest == [.subscription("First")])
        #expect(run.events == [.subscription("First"), .value(1), .finished])
        #expect(run.calls == [.request(.unlimited), .cancel])
        #expect(run.answers == [.none, .none])
    }

    @Test func firstWithDemandPublishesAtOnceAfterCancellingUpstream() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(
            initialDemand: .max(3),
            onCompletion: { [unowned upstream] _ in
                #expect(upstream.calls == [.request(.unlimited), .cancel])
            })
        defer { subscriber.cancel() }
        upstream.first().subscribe(subscriber)
        #expect(upstream.send(25) == .none)
        #expect(subscriber.events == [.subscription("First"), .value(25), .finished])
        upstream.send(completion: .finished)
        #expect(upstream.send(73) == .none)
        #expect(subscriber.events == [.subscription("First"), .value(25), .finished])
    }

    @Test func firstOfAnEmptyOrFailingUpstream() {
        #expect(runReduction([]) { $0.first() }.events == [.subscription("First"), .finished])
        #expect(
            runReduction([], then: .failure(.oops)) { $0.first() }.events
                == [.subscription("First"), .failure(.oops)])
    }

    @Test func firstWhereIsDescribedAsTryFirst() {
        var calls = 0
        let run = runReduction([0, 1, 2, 3]) {
            $0.first {
                calls += 1
                return $0 > 1
            }
        }
        #expect(run.beforeRequest == [.subscription("TryFirst")])
        #expect(run.events == [.subscription("TryFirst"), .value(2), .finished])
        #expect(run.calls == [.request(.unlimited), .cancel])
        #expect(calls == 3)
        #expect(runReduction([0, 1]) { $0.first { $0 > 1 } }.events == [.subscription("TryFirst"), .finished])
    }

    @Test func tryFirstWhere() {
        let run = runReduction([0, 3, 4]) { $0.tryFirst { $0 > 2 }.mapError(transformingTestError) }
        #expect(run.events == [.subscription("TryFirstWhere"), .value(3), .finished])
        #expect(run.calls == [.request(.unlimited), .cancel])
        let thrown = runReduction([0, 3]) { upstream in
            upstream.tryFirst { value -> Bool in
                if value == 3 { throw TestError.oops }
                return false
            }.mapError(transformingTestError)
        }
        #expect(thrown.beforeRequest == [.subscription("TryFirstWhere"), .failure(.oops)])
        #expect(thrown.calls == [.request(.unlimited), .cancel])
        #expect(
            runReduction([], then: .failure(.other)) { $0.tryFirst { _ in true }.mapError(transformingTestError) }
                .events == [.subscription("TryFirstWhere"), .failure(.other)])
    }

    @Test func publishersKeepTheirParts() throws {
        let upstream = TestPublisher<Int, Never>()
        #expect(upstream.first().upstream === upstream)
        #expect(upstream.first { $0 > 1 }.predicate(2))
        #expect(try upstream.tryFirst { $0 > 1 }.predicate(0) == false)
        #expect(TransformingEquatableSource(id: 1).first() == TransformingEquatableSource(id: 1).first())
        #expect(TransformingEquatableSource(id: 1).first() != TransformingEquatableSource(id: 2).first())
    }
}

@Suite("Last, LastWhere, TryLastWhere")
struct LastTests {
    @Test func lastPublishesTheLastValueOnceFinished() {
        let run = runReduction([1, 2, 3]) { $0.last() }
        #expect(run.beforeRequest == [.subscription("Last")])
        #expect(run.events == [.subscription("Last"), .value(3), .finished])
        #expect(run.calls == [.request(.unlimited)])
        #expect(runReduction([]) { $0.last() }.events == [.subscription("Last"), .finished])
        #expect(
            runReduction([1], then: .failure(.oops)) { $0.last() }.events == [.subscription("Last"), .failure(.oops)])
    }

    @Test func lastWhere() {
        let run = runReduction([1, 4, 3, 6, 5]) { $0.last { $0.isMultiple(of: 2) } }
        #expect(run.events == [.subscription("LastWhere"), .value(6), .finished])
        #expect(
            runReduction([1, 3]) { $0.last { $0.isMultiple(of: 2) } }.events == [.subscription("LastWhere"), .finished])
    }

    @Test func tryLastWhere() {
        let run = runReduction([1, 4, 3]) { $0.tryLast { $0 > 2 }.mapError(transformingTestError) }
        #expect(run.events == [.subscription("TryLastWhere"), .value(3), .finished])
        let thrown = runReduction([1, 4, 3]) { upstream in
            upstream.tryLast { value -> Bool in
                if value == 4 { throw TestError.oops }
                return true
            }.mapError(transformingTestError)
        }
        #expect(thrown.beforeRequest == [.subscription("TryLastWhere"), .failure(.oops)])
        #expect(thrown.calls == [.request(.unlimited), .cancel])
        #expect(
            runReduction([], then: .failure(.other)) { $0.tryLast { _ in true }.mapError(transformingTestError) }
                .events == [.subscription("TryLastWhere"), .failure(.other)])
    }

    @Test func publishersKeepTheirParts() throws {
        let upstream = TestPublisher<Int, Never>()
        #expect(upstream.last().upstream === upstream)
        #expect(upstream.last { $0 > 1 }.predicate(2))
        #expect(try upstream.tryLast { $0 > 1 }.predicate(0) == false)
        #expect(TransformingEquatableSource(id: 1).last() == TransformingEquatableSource(id: 1).last())
        #expect(TransformingEquatableSource(id: 1).last() != TransformingEquatableSource(id: 2).last())
    }
}
