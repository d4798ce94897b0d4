import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Waiting for SIGINT or SIGTERM, which end the simulator in order instead of killing it.
public enum TerminationSignal {
    /// Stops SIGINT and SIGTERM from killing the process, then returns the first of them that arrives.
    public static func wait() async -> Int32 {
        let watched: [Int32] = [SIGINT, SIGTERM]
        for number in watched { signal(number, SIG_IGN) }
        let arrival = Arrival()
        let queue = DispatchQueue(label: "ripple-bluez-sim.signals")
        let sources = watched.map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { arrival.arrived(number) }
            source.resume()
            return source
        }
        let number = await arrival.first()
        sources.forEach { $0.cancel() }
        return number
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
