/// A ``TestSubscriber`` wait that did not see what it waited for in time.
public struct TestSubscriberTimeout: Error, CustomStringConvertible, Sendable {
    /// How long the wait lasted.
    public let timeout: Duration
    /// The subscriber's history when the wait gave up, as text.
    public let history: String

    /// What was recorded when the wait gave up.
    public var description: String {
        "a TestSubscriber waited \(timeout) in vain; history: [\(history)]"
    }
}
