#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Publishers {
    /// A publisher that republishes its upstream's values and finishing, and stops the process with a
    /// message if the upstream fails.
    ///
    /// As in Combine, a failure is treated as a programming error: the process traps with
    /// `"<prefix>: <error>"` (or just the error), reported at `file` and `line`. The upstream's subscription
    /// is passed through to the downstream.
    public struct AssertNoFailure<Upstream: Publisher>: Publisher {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// `Never`: a failure stops the process instead.
        public typealias Failure = Never

        /// The publisher that is asserted never to fail.
        public let upstream: Upstream
        /// Text put before the error in the trap message (followed by `": "`), or `""` for none.
        public let prefix: String
        /// The file the trap is reported in.
        public let file: StaticString
        /// The line the trap is reported at.
        public let line: UInt

        /// Creates a publisher that traps if `upstream` fails.
        ///
        /// - Parameters:
        ///   - upstream: the publisher that is asserted never to fail.
        ///   - prefix: Text put before the error in the trap message (followed by `": "`), or `""` for none.
        ///   - file: the file the trap is reported in.
        ///   - line: the line the trap is reported at.
        public init(upstream: Upstream, prefix: String, file: StaticString, line: UInt) {
            self.upstream = upstream
            self.prefix = prefix
            self.file = file
            self.line = line
        }

        /// Subscribes `subscriber` to the upstream through an asserting subscriber.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
            upstream.subscribe(Inner(downstream: subscriber, prefix: prefix, file: file, line: line))
        }
    }
}

extension Publishers.AssertNoFailure {
    /// The subscriber to the upstream: it forwards everything and traps on failure.
    private struct Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    where Downstream.Input == Upstream.Output, Downstream.Failure == Never {
        typealias Input = Upstream.Output
        typealias Failure = Upstream.Failure

        let combineIdentifier = CombineIdentifier()
        private let downstream: Downstream
        private let prefix: String
        private let file: StaticString
        private let line: UInt

        init(downstream: Downstream, prefix: String, file: StaticString, line: UInt) {
            self.downstream = downstream
            self.prefix = prefix
            self.file = file
            self.line = line
        }

        var description: String { "AssertNoFailure" }
        var customMirror: Mirror { Mirror(self, children: ["file": file, "line": line, "prefix": prefix]) }
        var playgroundDescription: Any { description }

        func receive(subscription: any Subscription) {
            downstream.receive(subscription: subscription)
        }

        func receive(_ input: Input) -> Subscribers.Demand {
            downstream.receive(input)
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            switch completion {
            case .finished:
                downstream.receive(completion: .finished)
            case .failure(let error):
                // The documented purpose of this operator (as in Combine): a failure is a programming error.
                let message = (prefix.isEmpty ? "" : prefix + ": ") + "\(error)"
                #if !DEBUG
                // Optimised builds trap without printing the message: write it out first.
                var report = "\(file):\(line): Fatal error: \(message)\n"
                report.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
                #endif
                preconditionFailure(message, file: file, line: line)
            }
        }
    }
}

extension Publisher {
    /// Republishes this publisher's values and finishing, and stops the process if it fails.
    ///
    /// - Parameters:
    ///   - prefix: put before the error in the trap message.
    ///   - file: the file the trap is reported in; the caller's by default.
    ///   - line: the line the trap is reported at; the caller's by default.
    /// - Returns: a publisher that never fails: a failure of this one traps with its error instead.
    public func assertNoFailure(
        _ prefix: String = "",
        file: StaticString = #file,
        line: UInt = #line
    ) -> Publishers.AssertNoFailure<Self> {
        Publishers.AssertNoFailure(upstream: self, prefix: prefix, file: file, line: line)
    }
}
