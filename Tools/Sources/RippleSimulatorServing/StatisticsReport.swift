import RippleBlueZSimulator

/// The statistics the simulator prints when it stops.
public enum StatisticsReport {
    /// One line each: notifications sent by path, the emitter's CPU time, the process's CPU time.
    public static func lines(_ snapshot: SimulatorStatistics.Snapshot) -> [String] {
        [
            "notifications sent: \(snapshot.socketNotifications + snapshot.signalNotifications) "
                + "(\(snapshot.socketNotifications) over AcquireNotify sockets, "
                + "\(snapshot.signalNotifications) as PropertiesChanged signals)",
            "emitter CPU time: \(milliseconds(snapshot.emitterCPUNanoseconds)) ms, "
                + "\(formatted(snapshot.emitterNanosecondsPerNotification)) ns per socket notification",
            "process CPU time: \(milliseconds(snapshot.processCPUNanoseconds)) ms",
        ]
    }

    private static func milliseconds(_ nanoseconds: Int) -> String {
        formatted(Double(nanoseconds) / 1_000_000)
    }

    /// `value` with one decimal.
    private static func formatted(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(abs(tenths % 10))"
    }
}
