/// A time interval that can be made from seconds, milliseconds, microseconds or nanoseconds.
public protocol SchedulerTimeIntervalConvertible {
    /// An interval of `s` seconds.
    ///
    /// - Parameter s: The number of seconds.
    /// - Returns: The interval.
    static func seconds(_ s: Int) -> Self
    /// An interval of `s` seconds.
    ///
    /// - Parameter s: The number of seconds.
    /// - Returns: The interval.
    static func seconds(_ s: Double) -> Self
    /// An interval of `ms` milliseconds.
    ///
    /// - Parameter ms: The number of milliseconds.
    /// - Returns: The interval.
    static func milliseconds(_ ms: Int) -> Self
    /// An interval of `us` microseconds.
    ///
    /// - Parameter us: The number of microseconds.
    /// - Returns: The interval.
    static func microseconds(_ us: Int) -> Self
    /// An interval of `ns` nanoseconds.
    ///
    /// - Parameter ns: The number of nanoseconds.
    /// - Returns: The interval.
    static func nanoseconds(_ ns: Int) -> Self
}
