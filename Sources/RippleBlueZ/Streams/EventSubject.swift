import Ripple

/// The source of an *event* stream: each subscriber gets the values sent after it subscribed, through a
/// bounded buffer of its own (an ``EventBuffering``: its capacity and policy), with exact counts in an
/// ``EventStatistics``. Nothing is lost within the buffer, whatever the subscriber's demand; past it, the
/// policy drops (counted) or ends the stream with a failure that says so.
///
/// - The subject's own buffering and statistics serve its subscribers; ``publisher(buffering:statistics:)``
///   gives publishers of the same events with other ones (a statistics object per consumer, say).
/// - Values are delivered in the ``DeliveryContext`` given (the central's: its loop thread), in the order
///   sent. Send from one thread at a time (the loop's): concurrent sends have no order.
/// - `send(completion:)` ends every subscriber after the values waiting in its buffer; later subscribers
///   get the completion at once.
///
/// The subject keeps each live subscription until it is cancelled or completed (as Combine's subjects do).
package final class EventSubject<Output, Failure: Error>: Subject, Sendable {
    typealias Member = BufferedSubscription<AnySubscriber<Output, Failure>>

    /// The buffer each subscriber of the subject itself gets.
    package let buffering: EventBuffering
    /// Where the subject's own subscribers are counted.
    package let statistics: EventStatistics
    private let context: DeliveryContext
    private let overflowFailure: @Sendable (_ capacity: Int) -> Subscribers.Completion<Failure>
    private let name: String
    private let members = StreamMembers<Member>()

    /// A subject whose subscribers get `buffering` and are counted in `statistics`.
    ///
    /// - Parameters:
    ///   - buffering: each subscriber's buffer and policy.
    ///   - statistics: where subscribers are counted.
    ///   - context: where values and completions are delivered.
    ///   - name: the stream's name, for its subscriptions' descriptions.
    ///   - overflowFailure: how a stream ends under ``EventBufferPolicy/failStream``, given the capacity.
    package init(
        buffering: EventBuffering = .default, statistics: EventStatistics = EventStatistics(),
        context: DeliveryContext = .callerThread, name: String,
        overflowFailure: @escaping @Sendable (_ capacity: Int) -> Subscribers.Completion<Failure>
    ) {
        self.buffering = buffering
        self.statistics = statistics
        self.context = context
        self.name = name
        self.overflowFailure = overflowFailure
    }

    /// The number of live subscriptions.
    package var subscriptionCount: Int {
        members.count
    }

    /// Sends `value` to every live subscriber (into its buffer when it has no demand); ignored once the
    /// subject completed.
    ///
    /// - Parameter value: the event.
    package func send(_ value: Output) {
        for member in members.live { member.offer(value) }
    }

    /// Ends every subscriber's stream with `completion`, after the values waiting in its buffer.
    ///
    /// - Parameter completion: how the stream ends.
    package func send(completion: Subscribers.Completion<Failure>) {
        for member in members.end(completion) { member.finish(completion) }
    }

    /// Takes `subscription`, an upstream the subject is attached to (a `multicast`'s source, say), and
    /// requests every value from it: the subscribers' buffers absorb the difference.
    ///
    /// - Parameter subscription: the upstream subscription.
    package func send(subscription: any Subscription) {
        subscription.request(.unlimited)
    }

    /// Subscribes `subscriber` with the subject's buffering and statistics.
    ///
    /// - Parameter subscriber: the subscriber.
    package func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        attach(subscriber, buffering: buffering, statistics: statistics)
    }

    /// A publisher of the subject's events whose subscribers get `buffering` and are counted in
    /// `statistics`.
    ///
    /// - Parameters:
    ///   - buffering: each subscriber's buffer and policy.
    ///   - statistics: where its subscribers are counted.
    /// - Returns: the publisher.
    package func publisher(buffering: EventBuffering, statistics: EventStatistics) -> AnyPublisher<Output, Failure> {
        EventSubjectPublisher(subject: self, buffering: buffering, statistics: statistics).eraseToAnyPublisher()
    }

    /// Subscribes `subscriber` with a buffer of its own. The buffer is registered before the subscriber has
    /// it, so that an event sent during the handover (from another thread, or by the subscriber itself) is
    /// kept, not lost; it delivers nothing until the handover ends, so that a completion (the subject's, or
    /// an overflow's) cannot reach the subscriber before its subscription.
    func attach<S: Subscriber>(_ subscriber: S, buffering: EventBuffering, statistics: EventStatistics)
    where S.Input == Output, S.Failure == Failure {
        let member = Member(
            downstream: AnySubscriber(subscriber), capacity: buffering.capacity,
            overflow: buffering.overflowRule(ending: overflowFailure),
            counters: statistics.counters, context: context, description: name, awaitingHandover: true)
        members.register(member)
        subscriber.receive(subscription: member)
        member.handedOver()
    }
}

extension EventSubject where Failure == BluetoothError {
    /// A subject whose streams fail with ``BluetoothError/Kind/bufferOverflow`` under
    /// ``EventBufferPolicy/failStream``.
    ///
    /// - Parameters:
    ///   - buffering: each subscriber's buffer and policy.
    ///   - statistics: where subscribers are counted.
    ///   - context: where values and completions are delivered.
    ///   - name: the stream's name (it appears in the overflow error).
    package convenience init(
        buffering: EventBuffering = .default, statistics: EventStatistics = EventStatistics(),
        context: DeliveryContext = .callerThread, name: String
    ) {
        self.init(
            buffering: buffering, statistics: statistics, context: context, name: name,
            overflowFailure: { EventBuffering.overflowFailure(of: name, capacity: $0) })
    }
}

extension EventSubject where Failure == Never {
    /// A subject whose streams cannot fail: under ``EventBufferPolicy/failStream`` an overflowing stream
    /// finishes, with its drops counted.
    ///
    /// - Parameters:
    ///   - buffering: each subscriber's buffer and policy.
    ///   - statistics: where subscribers are counted.
    ///   - context: where values and completions are delivered.
    ///   - name: the stream's name.
    package convenience init(
        buffering: EventBuffering = .default, statistics: EventStatistics = EventStatistics(),
        context: DeliveryContext = .callerThread, name: String
    ) {
        self.init(
            buffering: buffering, statistics: statistics, context: context, name: name,
            overflowFailure: { _ in .finished })
    }
}

/// The publisher of ``EventSubject/publisher(buffering:statistics:)``.
struct EventSubjectPublisher<Output, Failure: Error>: Publisher {
    let subject: EventSubject<Output, Failure>
    let buffering: EventBuffering
    let statistics: EventStatistics

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        subject.attach(subscriber, buffering: buffering, statistics: statistics)
    }
}
