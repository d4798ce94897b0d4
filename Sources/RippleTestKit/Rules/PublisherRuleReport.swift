/// What ``PublisherRuleChecker`` found: the scenarios it ran and every rule broken in them.
///
/// A test either asserts on it (`#expect(report.isConforming, "\(report)")`) or calls
/// ``requireConformance()``, which throws the report when a rule was broken.
public struct PublisherRuleReport: Error, Sendable, CustomStringConvertible {
    /// The scenarios run, in order.
    public let scenarios: [String]
    /// The rules broken, in the order first seen; empty when the publisher kept every rule.
    public let violations: [RuleViolation]

    /// Whether the publisher kept every rule checked.
    public var isConforming: Bool { violations.isEmpty }

    /// The rules broken, each once.
    public var brokenRules: Set<ReactiveStreamsRule> { Set(violations.map(\.rule)) }

    /// Returns normally when the publisher kept every rule.
    ///
    /// - Throws: The report itself, which describes each violation, when a rule was broken.
    public func requireConformance() throws(PublisherRuleReport) {
        if !isConforming { throw self }
    }

    /// One line per violation, or that every rule held.
    public var description: String {
        if violations.isEmpty {
            return "the publisher kept every rule checked in \(scenarios.count) scenarios"
        }
        return "the publisher broke \(brokenRules.count) rule(s):\n"
            + violations.map { "- \($0)" }.joined(separator: "\n")
    }
}
