import Ripple
import RippleBlueZ
import RippleTestKit
import Testing

extension TestSubscriber where Failure == BluetoothError {
    /// A subscriber that is subscribed to `publisher` at once and asks for `demand` values at first (all of them
    /// by default): the central's streams, recorded for a test that waits for a condition on them with
    /// ``TestSubscriber/wait(timeout:until:)`` (woken by each event, never by polling).
    ///
    /// - Parameters:
    ///   - publisher: The stream to record.
    ///   - demand: What to request when the subscription arrives; `.none` requests nothing.
    convenience init(_ publisher: some Publisher<Input, BluetoothError>, demand: Subscribers.Demand = .unlimited) {
        self.init(initialDemand: demand)
        publisher.subscribe(self)
    }

    /// The error the stream failed with; records an issue and returns nil when it did not fail.
    ///
    /// - Parameter sourceLocation: Where the issue is recorded.
    /// - Returns: The failure, or nil.
    func failure(sourceLocation: SourceLocation = #_sourceLocation) -> BluetoothError? {
        guard case .failure(let error)? = completion else {
            Issue.record("the stream did not fail: \(String(describing: completion))", sourceLocation: sourceLocation)
            return nil
        }
        return error
    }
}
