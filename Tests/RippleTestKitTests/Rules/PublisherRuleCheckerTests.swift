import RippleTestKit
import Testing

@testable import RippleTestKit

/// The rule checker: Ripple's own publishers keep every rule, and each deliberately broken publisher is
/// caught breaking its rule by number.
@Suite struct PublisherRuleCheckerTests {
    enum Failure: Error { case broken }

    @Test func ripplesSynchronousPublishersKeepEveryRule() async throws {
        let checker = PublisherRuleChecker()
        try await checker.check { Just(1) }.requireConformance()
        try await checker.check { (1...100).publisher }.requireConformance()
        try await checker.check { (1...100).publisher.map { $0 * 2 }.filter { $0 > 10 } }.requireConformance()
        try await checker.check { Empty<Int, Never>() }.requireConformance()
        try await checker.check { Fail<Int, Failure>(error: .broken) }.requireConformance()
        try await checker.check { CurrentValueSubject<Int, Never>(5) }.requireConformance()
        try await checker.check { [1, 2, 3].publisher.buffer(size: 2, prefetch: .byRequest, whenFull: .dropOldest) }
            .requireConformance()
    }

    @Test func aPublisherOnAVirtualTimeSchedulerKeepsEveryRule() async throws {
        let scheduler = VirtualTimeScheduler()
        let checker = PublisherRuleChecker(settle: { scheduler.advance(by: .seconds(1)) })
        try await checker.check {
            Publishers.every(.milliseconds(300), on: scheduler).prefix(8)
        }.requireConformance()
    }

    @Test func catchesAPublisherThatSendsWithoutDemand() async throws {
        let report = await PublisherRuleChecker().check { BrokenPublishers.SendsWithoutDemand() }
        #expect(report.brokenRules == [.demand])
        let first = try #require(report.violations.first)
        #expect(first.scenario == "no demand")
        #expect(first.detail == "value 1 arrived when 0 had been requested")
        #expect(first.occurrences == 3)
        #expect(throws: PublisherRuleReport.self) { try report.requireConformance() }
        #expect(
            report.description == """
                the publisher broke 1 rule(s):
                - §1.1 (the total number of values signalled must not exceed the total demand requested) \
                in "no demand": value 1 arrived when 0 had been requested (3 times)
                """)
    }

    @Test func catchesAPublisherThatSendsAfterCompletion() async {
        let report = await PublisherRuleChecker().check { BrokenPublishers.SendsAfterCompletion() }
        #expect(report.brokenRules.contains(.noSignalsAfterTermination))
        #expect(
            report.violations.first { $0.rule == .noSignalsAfterTermination }?.detail
                == "value 2 arrived after the completion")
        #expect(
            report.description.contains(
                "§1.7 (no signals after a terminal signal (finished or failure)) in \"one at a time\""))
    }

    @Test func catchesAPublisherThatSendsBeforeItsSubscription() async {
        let report = await PublisherRuleChecker().check { BrokenPublishers.SendsBeforeSubscription() }
        #expect(report.brokenRules.contains(.subscriptionFirst))
    }

    @Test func catchesUnboundedRecursionThroughRequest() async {
        let report = await PublisherRuleChecker(values: 20).check { BrokenPublishers.RecursesOnRequest() }
        #expect(report.brokenRules == [.boundedRecursion])
        #expect(report.violations.first?.scenario == "request inside a value")
    }

    @Test func catchesAPublisherThatIgnoresCancel() async {
        let scheduler = VirtualTimeScheduler()
        let checker = PublisherRuleChecker(settle: { scheduler.advance(by: .seconds(1)) })
        let report = await checker.check { BrokenPublishers.IgnoresCancel(scheduler: scheduler) }
        #expect(report.brokenRules == [.stopAfterCancel, .requestAfterCancelDoesNothing])
    }

    @Test func catchesOverlappingSignals() {
        // A second value delivered while the first is still being delivered, not from inside a request.
        let holder = ProbeHolder()
        defer { holder.probe = nil }  // the probe's behaviour keeps the holder
        let probe = RuleProbe<Int, Never>(
            scenario: "overlap",
            behaviour: .init(
                initialDemand: .unlimited,
                demandAfterValue: { count in
                    if count == 1 { _ = holder.probe?.receive(2) }
                    return .none
                }))
        holder.probe = probe
        probe.receive(subscription: Subscriptions.empty)
        _ = probe.receive(1)
        #expect(probe.violations.map(\.rule) == [.serialSignals])
    }

    @Test func everyRuleIsNamedByItsNumberInTheSpecification() {
        #expect(ReactiveStreamsRule.allCases.map(\.number) == ["1.1", "1.3", "1.7", "1.8", "1.9", "3.3", "3.6"])
        #expect(
            ReactiveStreamsRule.demand.description
                == "§1.1 (the total number of values signalled must not exceed the total demand requested)")
    }
}

/// Lets a probe's behaviour reach the probe it belongs to.
private final class ProbeHolder: @unchecked Sendable {
    var probe: RuleProbe<Int, Never>?
}
