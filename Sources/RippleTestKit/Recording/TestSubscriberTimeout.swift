/// A ``TestSubscriber`` wait that did not see what it waited for in time.
///
/// Its description is short whatever the history's length: the counts, the completion, and the last
/// ``recentLimit`` entries of the history.
public struct TestSubscriberTimeout: Error, CustomStringConvertible, Sendable {
    /// How many entries of the history a timeout keeps: the most recent ones.
    public static let recentLimit = 10

    /// How long the wait lasted.
    public let timeout: Duration
    /// How many values had arrived when the wait gave up.
    public let valueCount: Int
    /// The completion that had arrived, as text (`finished`, `failure(…)`), or `nil` if none had.
    public let completion: String?
    /// How many entries the whole history held (signals received, requests and cancel sent).
    public let historyCount: Int
    /// The last entries of the history (at most ``recentLimit``), oldest first, as text.
    public let recentHistory: [String]

    /// What was recorded when the wait gave up, e.g. `a TestSubscriber waited 30.0 seconds in vain:
    /// 99998 values, not completed; the last 10 of 100001 entries: [value(99989), …]`.
    public var description: String {
        let ending = completion.map { "completed (\($0))" } ?? "not completed"
        let entries =
            recentHistory.count == historyCount
            ? "history: " : "the last \(recentHistory.count) of \(historyCount) entries: "
        return "a TestSubscriber waited \(timeout) in vain: \(valueCount) values, \(ending); "
            + entries + "[\(recentHistory.joined(separator: ", "))]"
    }
}
