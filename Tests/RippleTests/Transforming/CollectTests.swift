import Testing
@testable import Ripple

@Suite("Collect, Count")
struct CollectAndCountTests {
    @Test func collectPublishesAllValuesAsOneArray() {
        let run = runReduction([3, 1, 2]) { $0.collect() }
        #expect(run.beforeRequest == [.subscription("Collect")])
        #expect(run.events == [.subscription("Collect"), .value([3, 1, 2]), .finished])
        #expect(run.calls == [.request(.unlimited)])
        #expect(runReduction([]) { $0.collect() }.events == [.subscription("Collect"), .value([]), .finished])
        #expect(runReduction([1], then: .failure(.oops)) { $0.collect() }.events
            == [.subscription("Collect"), .failure(.oops)])
    }

    @Test func countPublishesTheNumberOfValues() {
        #expect(runReduction([5, 5, 5]) { $0.count() }.events == [.subscription("Count"), .value(3), .finished])
        #expect(runReduction([]) { $0.count() }.events == [.subscription("Count"), .value(0), .finished])
        #expect(runReduction([1], then: .failure(.oops)) { $0.count() }.events
            == [.subscription("Count"), .failure(.oops)])
    }

    @Test func equatable() {
        #expect(TransformingEquatableSource(id: 1).collect() == TransformingEquatableSource(id: 1).collect())
        #expect(TransformingEquatableSource(id: 1).collect() != TransformingEquatableSource(id: 2).collect())
        #expect(TransformingEquatableSource(id: 1).count() == TransformingEquatableSource(id: 1).count())
        #expect(TransformingEquatableSource(id: 1).count() != TransformingEquatableSource(id: 2).count())
    }
}
