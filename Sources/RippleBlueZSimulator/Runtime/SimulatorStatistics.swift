import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What the simulator has sent and what it cost, so that a benchmark of a client can subtract the
/// simulator's own work. Safe from any thread.
public final class SimulatorStatistics: Sendable {
    /// A reading of the counters.
    public struct Snapshot: Sendable, Hashable {
        /// Notifications written to `AcquireNotify` sockets.
        public var socketNotifications: Int
        /// Notifications sent as `PropertiesChanged(Value)` signals (StartNotify sessions).
        public var signalNotifications: Int
        /// CPU time spent by the threads that write to `AcquireNotify` sockets, in nanoseconds.
        public var emitterCPUNanoseconds: Int
        /// CPU time of the whole process (user + system) when the reading was taken, in nanoseconds.
        public var processCPUNanoseconds: Int

        /// Emitter CPU time per socket notification, in nanoseconds (0 when none was sent).
        public var emitterNanosecondsPerNotification: Double {
            socketNotifications == 0 ? 0 : Double(emitterCPUNanoseconds) / Double(socketNotifications)
        }
    }

    private let socketNotifications = Atomic<Int>(0)
    private let signalNotifications = Atomic<Int>(0)
    private let emitterCPUNanoseconds = Atomic<Int>(0)

    /// Counters at zero.
    public init() {}

    /// The counters now.
    public var snapshot: Snapshot {
        Snapshot(
            socketNotifications: socketNotifications.load(ordering: .relaxed),
            signalNotifications: signalNotifications.load(ordering: .relaxed),
            emitterCPUNanoseconds: emitterCPUNanoseconds.load(ordering: .relaxed),
            processCPUNanoseconds: Self.processCPUNanoseconds())
    }

    /// Counts `count` notifications written to a socket.
    func recordSocketNotifications(_ count: Int) {
        socketNotifications.add(count, ordering: .relaxed)
    }

    /// Counts `count` notifications sent as signals.
    func recordSignalNotifications(_ count: Int) {
        signalNotifications.add(count, ordering: .relaxed)
    }

    /// Adds CPU time an emitter thread spent.
    func recordEmitterCPU(nanoseconds: Int) {
        emitterCPUNanoseconds.add(nanoseconds, ordering: .relaxed)
    }

    /// The CPU time the calling thread has used, in nanoseconds.
    static func threadCPUNanoseconds() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return time.tv_sec * 1_000_000_000 + time.tv_nsec
    }

    /// The CPU time the process has used (user + system), in nanoseconds.
    static func processCPUNanoseconds() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let user = usage.ru_utime.tv_sec * 1_000_000_000 + usage.ru_utime.tv_usec * 1000
        let system = usage.ru_stime.tv_sec * 1_000_000_000 + usage.ru_stime.tv_usec * 1000
        return user + system
    }
}
