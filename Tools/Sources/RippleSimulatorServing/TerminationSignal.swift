import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Waiting for SIGINT or SIGTERM, which end the simulator in order instead of killing it.
public enum TerminationSignal {
    /// Stops SIGINT and SIGTERM from killing the process, then returns the first of them that arrives.
    ///
    /// - Returns: The signal's number.
    public static func wait() async -> Int32 {
        await Watch().first()
    }

    /// SIGINT and SIGTERM caught from its creation on (they no longer kill the process), so that a signal
    /// sent as soon as the process has said it is ready (its first line) is not lost.
    public final class Watch {
        private let arrival = Arrival()
        private let sources: [any DispatchSourceSignal]

        /// Starts catching SIGINT and SIGTERM.
        public init() {
            let watched: [Int32] = [SIGINT, SIGTERM]
            for number in watched { signal(number, SIG_IGN) }
            let arrival = arrival
            let queue = DispatchQueue(label: "ripple-bluez-sim.signals")
            sources = watched.map { number in
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { arrival.arrived(number) }
                source.resume()
                return source
            }
        }

        /// The first of the signals caught since ``init()``, once one has arrived.
        ///
        /// - Returns: The signal's number.
        public func first() async -> Int32 {
            let number = await arrival.first()
            sources.forEach { $0.cancel() }
            return number
        }
    }

    /// The first signal that arrived, and the task waiting for it.
    private final class Arrival: Sendable {
        private struct State {
            var signal: Int32?
            var waiter: CheckedContinuation<Int32, Never>?
        }

        private let state = Mutex(State())

        func arrived(_ number: Int32) {
            let waiter = state.withLock { state -> CheckedContinuation<Int32, Never>? in
                guard state.signal == nil else { return nil }
                state.signal = number
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: number)
        }

        func first() async -> Int32 {
            await withCheckedContinuation { continuation in
                let arrived = state.withLock { state -> Int32? in
                    if let signal = state.signal { return signal }
                    state.waiter = continuation
                    return nil
                }
                if let arrived { continuation.resume(returning: arrived) }
            }
        }
    }
}
