import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Waiting for what ends a command that runs until it is told to stop: SIGINT, SIGTERM, or — when the
/// command watches it (``StandardInputLifeline``) — the end of standard input. All of them end the command in
/// order instead of killing it.
public enum Termination {
    /// What asked a command to stop.
    public enum Cause: Sendable, Equatable, CustomStringConvertible {
        /// SIGINT or SIGTERM, by number.
        case signal(Int32)
        /// Standard input reached its end (the process at the other end closed it or ended).
        case standardInputClosed

        public var description: String {
            switch self {
            case .signal(let number): "signal \(number)"
            case .standardInputClosed: "standard input closed"
            }
        }
    }

    /// Stops SIGINT and SIGTERM from killing the process, then returns the first cause to stop that arrives.
    ///
    /// - Returns: The first signal, or the end of standard input when a lifeline watches it.
    public static func wait() async -> Cause {
        await Watch().first()
    }

    /// SIGINT and SIGTERM caught from its creation on (they no longer kill the process), so that a signal
    /// sent as soon as the process has said it is ready (its first line) is not lost.
    public final class Watch: Sendable {
        /// Starts catching SIGINT and SIGTERM: from here on they are recorded, not acted upon.
        public init() {
            _ = Termination.catcher
        }

        /// The first cause to stop since the process began catching signals (or since its lifeline broke,
        /// when that came first), once one has arrived.
        ///
        /// - Returns: The signal, or the end of standard input.
        public func first() async -> Cause {
            await Termination.arrival.first()
        }
    }

    /// Records `cause` as a reason to stop: the first one recorded is what every ``Watch`` returns.
    static func request(_ cause: Cause) {
        arrival.arrived(cause)
    }

    /// The first cause to stop, and the tasks waiting for it (kept apart from the catcher, so that a cause
    /// recorded before any ``Watch`` exists is not lost).
    private static let arrival = Arrival()

    /// The process's one catcher, installed the first time a ``Watch`` is created.
    private static let catcher = Catcher(arrival: arrival)
}

/// The write end of the pipe the signal handler writes each caught signal's number to (set once, before the
/// handler is installed).
private nonisolated(unsafe) var caughtSignalPipe: Int32 = -1

/// The handler of SIGINT and SIGTERM: it only writes the signal's number to the pipe (async-signal-safe).
private func forwardCaughtSignal(_ number: Int32) {
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(caughtSignalPipe, &byte, 1)
}

/// SIGINT and SIGTERM handled by a plain signal handler that writes to a pipe, and a thread that reads the
/// pipe: a signal arriving at any time after installation is kept in the pipe until it is read, with no
/// registration left to race (a dispatch signal source is armed asynchronously, and a signal that came before
/// was lost).
private final class Catcher: Sendable {
    init(arrival: Arrival) {
        var ends: [Int32] = [-1, -1]
        // A connected socket pair as the pipe: both ends close-on-exec from the moment they exist (Swift's
        // Glibc module has no pipe2), so no process spawned meanwhile keeps a copy of either.
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            // Without a pipe the signals keep their default action: they end the process at once.
            return
        }
        caughtSignalPipe = ends[1]
        let readEnd = ends[0]
        let reader = Thread {
            var byte: UInt8 = 0
            while true {
                let count = read(readEnd, &byte, 1)
                if count == 1 {
                    arrival.arrived(.signal(Int32(byte)))
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
        reader.name = "termination-signals"
        reader.start()
        for number in [SIGINT, SIGTERM] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = forwardCaughtSignal
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
        }
    }
}

/// The first cause to stop that arrived, and the tasks waiting for it.
private final class Arrival: Sendable {
    private struct State {
        var cause: Termination.Cause?
        var waiters: [CheckedContinuation<Termination.Cause, Never>] = []
    }

    private let state = Mutex(State())

    func arrived(_ cause: Termination.Cause) {
        let waiters = state.withLock { state -> [CheckedContinuation<Termination.Cause, Never>] in
            guard state.cause == nil else { return [] }
            state.cause = cause
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: cause) }
    }

    func first() async -> Termination.Cause {
        await withCheckedContinuation { continuation in
            let arrived = state.withLock { state -> Termination.Cause? in
                if let cause = state.cause { return cause }
                state.waiters.append(continuation)
                return nil
            }
            if let arrived { continuation.resume(returning: arrived) }
        }
    }
}
