import Ripple

extension EventBuffering {
    /// The buffered subscription's rule for this policy; under ``EventBufferPolicy/failStream`` the stream
    /// ends with `completion`, given the capacity.
    ///
    /// - Parameter completion: how an overflowing stream ends.
    /// - Returns: the rule.
    func overflowRule<Downstream: Subscriber>(
        ending completion: @escaping @Sendable (_ capacity: Int) -> Subscribers.Completion<Downstream.Failure>
    ) -> BufferedSubscription<Downstream>.OverflowRule {
        switch policy {
        case .dropOldest: .dropOldest
        case .dropNewest: .dropNewest
        case .failStream: .end(completion)
        }
    }

    /// How a stream named `stream` fails when a subscriber's buffer overflows under
    /// ``EventBufferPolicy/failStream``.
    ///
    /// - Parameters:
    ///   - stream: what the subscriber listens to ("notifications", "discovery").
    ///   - capacity: the buffer's capacity.
    /// - Returns: a ``BluetoothError/Kind/bufferOverflow`` failure.
    static func overflowFailure(of stream: String, capacity: Int) -> Subscribers.Completion<BluetoothError> {
        .failure(
            BluetoothError(
                .bufferOverflow,
                "a subscriber of \(stream) fell \(capacity) values behind its demand; those waiting were dropped"))
    }
}
