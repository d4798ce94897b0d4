import Testing

/// A `for await` loop over a sequence, in a task of its own, whose body hands each value to the test and
/// then awaits the gate the test opens: while the gate is shut, the loop demands nothing.
final class GatedConsumer<Element: Sendable>: Sendable {
    private let reports: AsyncStream<Element?>
    private let reporter: AsyncStream<Element?>.Continuation
    private let gate: AsyncStream<Void>.Continuation
    private let subscribed: AsyncStream<Void>
    private let task: Task<Void, Never>
    nonisolated(unsafe) private var reportIterator: AsyncStream<Element?>.AsyncIterator

    init<S: AsyncSequence & SendableMetatype>(_ sequence: sending S)
    where S.Element == Element, S.AsyncIterator: SendableMetatype {
        let (reports, reporter) = AsyncStream.makeStream(of: Element?.self)
        let (gates, gate) = AsyncStream.makeStream(of: Void.self)
        let (subscribed, subscribedReporter) = AsyncStream.makeStream(of: Void.self)
        self.reports = reports
        self.reporter = reporter
        self.gate = gate
        self.subscribed = subscribed
        reportIterator = reports.makeAsyncIterator()
        task = Task {
            var iterator = sequence.makeAsyncIterator()
            subscribedReporter.yield()
            var gateIterator = gates.makeAsyncIterator()
            while let value = try? await iterator.next() {
                reporter.yield(value)
                _ = await gateIterator.next()
            }
            reporter.yield(nil)
            reporter.finish()
        }
    }

    /// Returns once the loop has subscribed.
    func waitUntilSubscribed(sourceLocation: SourceLocation = #_sourceLocation) async {
        await watched("the awaiting loop's subscription", sourceLocation: sourceLocation) {
            var iterator = subscribed.makeAsyncIterator()
            _ = await iterator.next()
        }
    }

    /// The next value the loop's body got (nil: the loop ended); records an issue when none comes within
    /// 30 s.
    func next(sourceLocation: SourceLocation = #_sourceLocation) async -> Element? {
        await watched("the awaiting loop's next value", sourceLocation: sourceLocation) {
            await reportIterator.next() ?? nil
        }
    }

    /// Lets the loop's body return and the loop ask for its next value.
    func open() {
        gate.yield()
    }

    /// Ends the loop (its task is cancelled, which ends its subscription) and returns once it has ended.
    func stop() async {
        task.cancel()
        gate.finish()
        await task.value
    }
}
