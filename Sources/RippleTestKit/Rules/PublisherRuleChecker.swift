/// Checks that a publisher keeps the Reactive Streams rules on demand, cancellation and completion: the
/// contract every Ripple and Combine subscriber relies on.
///
/// The checker subscribes a fresh publisher (from the closure it is given) in each of four scenarios, and
/// records every rule broken in any of them (``ReactiveStreamsRule``):
///
/// - **no demand**: subscribes and requests nothing. A value breaks §1.1.
/// - **one at a time**: requests one value, and one more after each, up to ``values``; then stops asking. A
///   value past the demand breaks §1.1.
/// - **request inside a value**: requests one value, then one more from inside each `receive(_:)` through
///   the subscription. Delivering values nested deeper than ``maximumRecursionDepth`` breaks §3.3.
/// - **cancel**: requests ``values`` values, cancels, then requests again and cancels again. A signal after
///   the cancel (once ``settle`` gave signals already on their way time to land) breaks §1.8, a value after
///   the request made after the cancel §3.6.
///
/// In every scenario a signal before the subscription or a second subscription breaks §1.9, a signal
/// after the completion §1.7, and two signals delivered at once §1.3.
///
/// ```swift
/// let report = await PublisherRuleChecker().check { [1, 2, 3, 4].publisher.map { $0 * 2 } }
/// try report.requireConformance()
/// ```
///
/// A publisher that delivers on another thread or a scheduler needs time between the steps: pass a
/// `settle` that waits for it (for example `{ scheduler.advance(by: .seconds(1)) }` with a
/// ``VirtualTimeScheduler``, or ``init(values:maximumRecursionDepth:settlingFor:)`` for real time).
public struct PublisherRuleChecker: Sendable {
    /// How many values the bounded scenarios ask for.
    public var values: Int
    /// The deepest nesting of deliveries allowed when the subscriber requests from inside `receive(_:)`.
    public var maximumRecursionDepth: Int
    /// Lets the publisher deliver what it will after each step of a scenario.
    public var settle: @Sendable () async -> Void

    /// Creates a checker.
    ///
    /// - Parameters:
    ///   - values: How many values the bounded scenarios ask for (at least 1).
    ///   - maximumRecursionDepth: The deepest nesting of deliveries allowed when the subscriber requests from
    ///     inside `receive(_:)`.
    ///   - settle: Called after each step so that the publisher can deliver what it will; by default it
    ///     yields a few times, which is enough for publishers that deliver synchronously or on a task.
    public init(
        values: Int = 3, maximumRecursionDepth: Int = 8,
        settle: @escaping @Sendable () async -> Void = PublisherRuleChecker.yieldBriefly
    ) {
        self.values = max(values, 1)
        self.maximumRecursionDepth = max(maximumRecursionDepth, 1)
        self.settle = settle
    }

    /// Creates a checker that waits `duration` of real time after each step, for publishers that deliver
    /// on threads of their own.
    ///
    /// - Parameters:
    ///   - values: How many values the bounded scenarios ask for (at least 1).
    ///   - maximumRecursionDepth: The deepest nesting of deliveries allowed.
    ///   - duration: How long to wait after each step.
    public init(values: Int = 3, maximumRecursionDepth: Int = 8, settlingFor duration: Duration) {
        self.init(values: values, maximumRecursionDepth: maximumRecursionDepth) {
            try? await Task.sleep(for: duration)
        }
    }

    /// The default settling: a few yields to the concurrency runtime.
    @Sendable public static func yieldBriefly() async {
        for _ in 0..<10 { await Task.yield() }
    }

    /// Runs every scenario against publishers made by `makePublisher`, one fresh publisher per scenario.
    ///
    /// - Parameter makePublisher: Makes the publisher to check; called once per scenario.
    /// - Returns: The scenarios run and every rule broken.
    public func check<P: Publisher>(_ makePublisher: () -> P) async -> PublisherRuleReport {
        var violations: [RuleViolation] = []
        let names = ["no demand", "one at a time", "request inside a value", "cancel"]
        violations += await noDemand(makePublisher(), scenario: names[0])
        violations += await oneAtATime(makePublisher(), scenario: names[1])
        violations += await requestInsideValue(makePublisher(), scenario: names[2])
        violations += await cancellation(makePublisher(), scenario: names[3])
        return PublisherRuleReport(scenarios: names, violations: violations)
    }

    // MARK: Scenarios

    private func noDemand<P: Publisher>(_ publisher: P, scenario: String) async -> [RuleViolation] {
        let probe = RuleProbe<P.Output, P.Failure>(scenario: scenario, behaviour: .init())
        return await run(probe, on: publisher)
    }

    private func oneAtATime<P: Publisher>(_ publisher: P, scenario: String) async -> [RuleViolation] {
        let limit = values
        let probe = RuleProbe<P.Output, P.Failure>(
            scenario: scenario,
            behaviour: .init(initialDemand: .max(1), demandAfterValue: { $0 < limit ? .max(1) : .none }))
        return await run(probe, on: publisher)
    }

    private func requestInsideValue<P: Publisher>(_ publisher: P, scenario: String) async -> [RuleViolation] {
        let limit = maximumRecursionDepth + values
        let probe = RuleProbe<P.Output, P.Failure>(
            scenario: scenario,
            behaviour: .init(initialDemand: .max(1), requestsInsideValue: { $0 < limit }))
        let found = await run(probe, on: publisher)
        let depth = probe.deepestRecursion
        guard depth > maximumRecursionDepth else { return found }
        return found + [
            RuleViolation(
                rule: .boundedRecursion, scenario: scenario,
                detail: "values were delivered \(depth) deep (more than \(maximumRecursionDepth))")
        ]
    }

    private func cancellation<P: Publisher>(_ publisher: P, scenario: String) async -> [RuleViolation] {
        let probe = RuleProbe<P.Output, P.Failure>(scenario: scenario, behaviour: .init(initialDemand: .max(values)))
        publisher.subscribe(probe)
        await settle()
        checkSubscribed(probe)
        probe.cancel()
        await settle()  // signals already on their way may still land
        probe.endGraceAfterCancel()
        await settle()
        probe.requestAfterCancel(.max(values))
        probe.cancel()
        await settle()
        probe.endScenario()
        return probe.violations
    }

    /// Subscribes `probe`, lets the publisher deliver, then cancels the subscription unless it completed.
    private func run<P: Publisher>(_ probe: RuleProbe<P.Output, P.Failure>, on publisher: P) async
        -> [RuleViolation]
    {
        publisher.subscribe(probe)
        await settle()
        checkSubscribed(probe)
        if !probe.isTerminated { probe.cancel() }
        await settle()
        probe.endScenario()
        return probe.violations
    }

    /// §1.9: once `subscribe` returned and the publisher settled, the subscription must have arrived.
    private func checkSubscribed<Input, Failure>(_ probe: RuleProbe<Input, Failure>) {
        if !probe.isSubscribed { probe.record(.subscriptionFirst, "no subscription arrived") }
    }
}
