/// A rule a publisher broke during one of ``PublisherRuleChecker``'s scenarios.
public struct RuleViolation: Hashable, Sendable, CustomStringConvertible {
    /// The rule broken.
    public let rule: ReactiveStreamsRule
    /// The scenario it was broken in, e.g. `"no demand"`.
    public let scenario: String
    /// What happened the first time, e.g. `"value 1 arrived when 0 had been requested"`.
    public let detail: String
    /// How many times the rule was broken in this scenario.
    public let occurrences: Int

    /// Creates a violation.
    ///
    /// - Parameters:
    ///   - rule: The rule broken.
    ///   - scenario: The scenario it was broken in.
    ///   - detail: What happened the first time.
    ///   - occurrences: How many times it happened in the scenario.
    public init(rule: ReactiveStreamsRule, scenario: String, detail: String, occurrences: Int = 1) {
        self.rule = rule
        self.scenario = scenario
        self.detail = detail
        self.occurrences = occurrences
    }

    /// `§1.1 (…) in "no demand": value 1 arrived when 0 had been requested (3 times)`.
    public var description: String {
        "\(rule) in \"\(scenario)\": \(detail)" + (occurrences > 1 ? " (\(occurrences) times)" : "")
    }
}
