/// A publisher that replays a recorded list of values and then a recorded completion to each subscriber.
///
/// Values are delivered as they are demanded; the recorded completion (`.finished` or `.failure`)
/// follows the last value at once, even when no demand remains. With no recorded values, the subscriber
/// receives an empty subscription (described as `"Empty"`) and the completion at once. The subscription is
/// described as the list of values until it completes or is cancelled, then as `"Cancelled Events"`.
public struct Record<Output, Failure: Error>: Publisher {
    /// The values and the completion replayed to each subscriber.
    public let recording: Recording

    /// Creates a publisher from a recording filled in by `record`.
    ///
    /// `record` receives an empty ``Recording`` and adds values and (optionally) a completion to it;
    /// without one, the completion is `.finished`.
    ///
    /// - Parameter record: Fills in the recording.
    public init(record: (inout Recording) -> Void) {
        var recording = Recording()
        record(&recording)
        self.init(recording: recording)
    }

    /// Creates a publisher that replays `recording`.
    ///
    /// - Parameter recording: The recording to replay.
    public init(recording: Recording) {
        self.recording = recording
    }

    /// Creates a publisher that replays `output`, then `completion`.
    ///
    /// - Parameters:
    ///   - output: The values to replay, in order.
    ///   - completion: How the publisher ended: finished, or failed with an error.
    public init(output: [Output], completion: Subscribers.Completion<Failure>) {
        self.init(recording: Recording(output: output, completion: completion))
    }

    /// Replays the recording to `subscriber`: values as demanded, then the completion.
    ///
    /// - Parameter subscriber: the subscriber.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let output = recording.output
        var iterator = output.makeIterator()
        guard let first = iterator.next() else {
            subscriber.receive(subscription: Subscriptions.empty)
            subscriber.receive(completion: recording.completion)
            return
        }
        let subscription = Publishers.Sequence<[Output], Failure>.Inner(
            downstream: subscriber,
            sequence: output,
            iterator: iterator,
            first: first,
            completion: recording.completion,
            finishedDescription: "Cancelled Events",
            mirrorsCompletion: true
        )
        subscriber.receive(subscription: subscription)
    }

    /// A list of values and a completion, filled in once: values first, then at most one completion.
    public struct Recording {
        /// A recording receives values of the publisher's output type.
        public typealias Input = Output

        /// Not a ``SubscriptionLifecycle``: a recording is filled in by direct calls, with no subscription.
        private enum Phase {
            case receivingInput
            case complete
        }

        private var phase: Phase

        /// The recorded values, in order.
        public private(set) var output: [Output]

        /// The recorded completion (`.finished` until another one is recorded).
        public private(set) var completion: Subscribers.Completion<Failure>

        /// Creates an empty recording that accepts values and then one completion.
        public init() {
            phase = .receivingInput
            output = []
            completion = .finished
        }

        /// Creates a finished recording of `output` followed by `completion`; it accepts nothing more.
        ///
        /// - Parameters:
        ///   - output: the recorded values, in order.
        ///   - completion: the recorded completion (`.finished` until another one is recorded).
        public init(output: [Output], completion: Subscribers.Completion<Failure> = .finished) {
            phase = .complete
            self.output = output
            self.completion = completion
        }

        /// Appends `input` to the recorded values. Recording a value after the completion traps (as in
        /// Combine: it is a programming error).
        ///
        /// - Parameter input: The value received.
        public mutating func receive(_ input: Input) {
            precondition(phase == .receivingInput, "Receiving values after completion is not allowed")
            output.append(input)
        }

        /// Records `completion` and closes the recording. Recording a second completion traps (as in
        /// Combine: it is a programming error).
        ///
        /// - Parameter completion: How the publisher ended: finished, or failed with an error.
        public mutating func receive(completion: Subscribers.Completion<Failure>) {
            precondition(phase == .receivingInput, "Receiving completion more than once is not allowed")
            self.completion = completion
            phase = .complete
        }
    }
}

extension Record: Sendable where Output: Sendable, Failure: Sendable {}

extension Record.Recording: Sendable where Output: Sendable, Failure: Sendable {}

extension Record: Codable where Output: Codable, Failure: Codable {}

extension Record.Recording: Codable where Output: Codable, Failure: Codable {
    private enum CodingKeys: String, CodingKey {
        case output
        case completion
    }

    /// Decodes a finished recording from its `output` and `completion`; it accepts nothing more.
    ///
    /// - Parameter decoder: the decoder to read from.
    /// - Throws: `DecodingError` when the data does not have this form.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let output = try container.decode([Output].self, forKey: .output)
        let completion = try container.decode(Subscribers.Completion<Failure>.self, forKey: .completion)
        self.init(output: output, completion: completion)
    }

    /// Encodes the recording as `output` and `completion`, as ``encode(to:)``.
    ///
    /// - Parameter encoder: The encoder to write into.
    /// - Throws: What the encoder throws.
    public func encode(into encoder: any Encoder) throws {
        try encode(to: encoder)
    }

    /// Encodes the recording as `output` and `completion`.
    ///
    /// - Parameter encoder: the encoder to write to.
    /// - Throws: the encoder's error.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(output, forKey: .output)
        try container.encode(completion, forKey: .completion)
    }
}
