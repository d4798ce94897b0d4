import Foundation
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
    public final class Watch: Sendable {
        /// Starts catching SIGINT and SIGTERM: from here on they are recorded, not acted upon.
        public init() {
            _ = TerminationSignal.catcher
        }

        /// The first SIGINT or SIGTERM the process received since it began catching them, once one has arrived.
        ///
        /// - Returns: The signal's number.
        public func first() async -> Int32 {
            await TerminationSignal.catcher.arrival.first()
        }
    }

    /// The process's one catcher, installed the first time a ``Watch`` is created.
    private static let catcher = Catcher()
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
    let arrival = Arrival()

    init() {
        var ends: [Int32] = [-1, -1]
        // A connected socket pair as the pipe: both ends close-on-exec from the moment they exist (Swift's
        // Glibc module has no pipe2), so no process spawned meanwhile keeps a copy of either.
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            // Without a pipe the signals keep their default action: they end the process at once.
            return
        }
        caughtSignalPipe = ends[1]
        let readEnd = ends[0]
        let arrival = arrival
        let reader = Thread {
            var byte: UInt8 = 0
            while true {
                let count = read(readEnd, &byte, 1)
                if count == 1 {
                    arrival.arrived(Int32(byte))
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

/// The first signal that arrived, and the tasks waiting for it.
private final class Arrival: Sendable {
    private struct State {
        var signal: Int32?
        var waiters: [CheckedContinuation<Int32, Never>] = []
    }

    private let state = Mutex(State())

    func arrived(_ number: Int32) {
        let waiters = state.withLock { state -> [CheckedContinuation<Int32, Never>] in
            guard state.signal == nil else { return [] }
            state.signal = number
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: number) }
    }

    func first() async -> Int32 {
        await withCheckedContinuation { continuation in
            let arrived = state.withLock { state -> Int32? in
                if let signal = state.signal { return signal }
                state.waiters.append(continuation)
                return nil
            }
            if let arrived { continuation.resume(returning: arrived) }
        }
    }
}
