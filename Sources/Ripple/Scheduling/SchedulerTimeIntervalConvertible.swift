/// A time interval that can be made from seconds, milliseconds, microseconds or nanoseconds.
public protocol SchedulerTimeIntervalConvertible {
    /// An interval of `s` seconds.
    static func seconds(_ s: Int) -> Self
    /// An interval of `s` seconds.
    static func seconds(_ s: Double) -> Self
    /// An interval of `ms` milliseconds.
    static func milliseconds(_ ms: Int) -> Self
    /// An interval of `us` microseconds.
    static func microseconds(_ us: Int) -> Self
    /// An interval of `ns` nanoseconds.
    static func nanoseconds(_ ns: Int) -> Self
}
