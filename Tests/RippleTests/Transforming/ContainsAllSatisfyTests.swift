import Testing

@testable import Ripple

@Suite("Contains, ContainsWhere, TryContainsWhere")
struct ContainsTests {
    @Test func containsDecidesTrueEarlyAndCancelsUpstream() {
        let run = runReduction([1, 2, 3]) { $0.contains(2) }
        #expect(run.beforeRequest == [.subscription("Contains")])
        #expect(run.events == [.subscription("Contains"), .value(true), .finished])
        #expect(run.calls == [.request(.unlimited), .cancel])
    }

    @Test func containsIsFalseWhenTheUpstreamFinishesWithoutIt() {
        let run = runReduction([1, 3]) { $0.contains(2) }
        #expect(run.events == [.subscription("Contains"), .value(false), .finished])
        #expect(run.calls == [.request(.unlimited)])
        #expect(
            runReduction([1], then: .failure(.oops)) { $0.contains(2) }.events
                == [.subscription("Contains"), .failure(.oops)])
    }

    @Test func containsWhereAndTryContainsWhere() {
        #expect(
            runReduction([1, 4]) { $0.contains { $0 > 3 } }.events == [
                .subscription("ContainsWhere"), .value(true), .finished,
            ])
        #expect(
            runReduction([1]) { $0.contains { $0 > 3 } }.events == [
                .subscription("ContainsWhere"), .value(false), .finished,
            ])
        #expect(
            runReduction([1, 4]) { $0.tryContains { $0 > 3 }.mapError(transformingTestError) }.events
                == [.subscription("TryContainsWhere"), .value(true), .finished])
        #expect(
            runReduction([1]) { $0.tryContains { $0 > 3 }.mapError(transformingTestError) }.events
                == [.subscription("TryContainsWhere"), .value(false), .finished])
        let thrown = runReduction([1, 2]) { upstream in
            upstream.tryContains { value -> Bool in
                if value == 2 { throw TestError.oops }
                return false
            }.mapError(transformingTestError)
        }
        #expect(thrown.beforeRequest == [.subscription("TryContainsWhere"), .failure(.oops)])
        #expect(thrown.calls == [.request(.unlimited), .cancel])
        #expect(
            runReduction([], then: .failure(.other)) { $0.tryContains { _ in true }.mapError(transformingTestError) }
                .events == [.subscription("TryContainsWhere"), .failure(.other)])
    }

    @Test func publishersKeepTheirParts() throws {
        let upstream = TestPublisher<Int, Never>()
        #expect(upstream.contains(3).output == 3)
        #expect(upstream.contains { $0 > 1 }.predicate(2))
        #expect(try upstream.tryContains { $0 > 1 }.predicate(0) == false)
        #expect(TransformingEquatableSource(id: 1).contains(1) == TransformingEquatableSource(id: 1).contains(1))
        #expect(TransformingEquatableSource(id: 1).contains(1) != TransformingEquatableSource(id: 1).contains(2))
    }
}

@Suite("AllSatisfy, TryAllSatisfy")
struct AllSatisfyTests {
    @Test func allSatisfyDecidesFalseEarlyAndCancelsUpstream() {
        let run = runReduction([2, 4, 5, 6]) { $0.allSatisfy { $0.isMultiple(of: 2) } }
        #expect(run.beforeRequest == [.subscription("AllSatisfy")])
        #expect(run.events == [.subscription("AllSatisfy"), .value(false), .finished])
        #expect(run.calls == [.request(.unlimited), .cancel])
        #expect(run.answers == [.none, .none, .none, .none])
    }

    @Test func allSatisfyIsTrueWhenTheUpstreamFinishes() {
        #expect(
            runReduction([2, 4]) { $0.allSatisfy { $0.isMultiple(of: 2) } }.events
                == [.subscription("AllSatisfy"), .value(true), .finished])
        #expect(
            runReduction([]) { $0.allSatisfy { _ in false } }.events
                == [.subscription("AllSatisfy"), .value(true), .finished])
        #expect(
            runReduction([2], then: .failure(.oops)) { $0.allSatisfy { _ in true } }.events
                == [.subscription("AllSatisfy"), .failure(.oops)])
    }

    @Test func tryAllSatisfy() throws {
        #expect(
            runReduction([2, 3]) { $0.tryAllSatisfy { $0 < 3 }.mapError(transformingTestError) }.events
                == [.subscription("TryAllSatisfy"), .value(false), .finished])
        #expect(
            runReduction([2]) { $0.tryAllSatisfy { $0 < 3 }.mapError(transformingTestError) }.events
                == [.subscription("TryAllSatisfy"), .value(true), .finished])
        let thrown = runReduction([1, 2]) { upstream in
            upstream.tryAllSatisfy { value -> Bool in
                if value == 2 { throw TestError.oops }
                return true
            }.mapError(transformingTestError)
        }
        #expect(thrown.beforeRequest == [.subscription("TryAllSatisfy"), .failure(.oops)])
        #expect(thrown.calls == [.request(.unlimited), .cancel])
        #expect(
            runReduction([], then: .failure(.other)) { $0.tryAllSatisfy { _ in true }.mapError(transformingTestError) }
                .events == [.subscription("TryAllSatisfy"), .failure(.other)])
        let upstream = TestPublisher<Int, Never>()
        #expect(upstream.allSatisfy { $0 > 1 }.predicate(2))
        #expect(try upstream.tryAllSatisfy { $0 > 1 }.predicate(0) == false)
    }
}
