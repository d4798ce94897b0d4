/// The failures of `Device1.Connect()` that the central retries by itself, within the connect timeout,
/// and how long it waits before each retry.
///
/// bluetoothd at normal priority (every real system) sometimes fails a connection that would succeed a
/// moment later. These failures are retried:
/// - `org.bluez.Error.Failed` "le-connection-abort-by-local": the controller or the kernel gave up the
///   LE connection attempt (bluetoothd 5.62 and later report it by this name);
/// - `org.bluez.Error.Failed` "Input/output error": the ATT channel failed as the link came up (EIO);
/// - `org.bluez.Error.InProgress`: a connection to the device is already being made (by bluetoothd
///   itself or another client); the retry then finds the link up, or the next attempt free.
///
/// Every other failure ends the attempt at once. The waits are 100 ms, 200 ms, 400 ms, 800 ms, then
/// 1 s each time, until the attempt's deadline: when it passes, the attempt fails with
/// ``BluetoothError/Kind/timeout``, carrying bluetoothd's last error. Attempts made by a
/// ``ReconnectPolicy`` are not retried this way: the policy decides from each failure.
enum ConnectRetryPolicy {
    /// Whether `error`, the answer to `Connect()`, is worth another `Connect()`.
    ///
    /// - Parameter error: bluetoothd's answer, as a ``BluetoothError`` with its name and message.
    /// - Returns: true for the transient failures listed above.
    static func isTransient(_ error: BluetoothError) -> Bool {
        guard let name = error.bluezName else { return false }
        if name == "org.bluez.Error.InProgress" { return true }
        guard name == "org.bluez.Error.Failed", let message = error.bluezMessage?.lowercased() else { return false }
        return message == "le-connection-abort-by-local" || message.contains("input/output error")
    }

    /// The wait before the next `Connect()`.
    ///
    /// - Parameter calls: how many `Connect()` calls the attempt made so far (1 after the first).
    /// - Returns: 100 ms after the first call, doubling, at most 1 s.
    static func delay(afterCalls calls: Int) -> Duration {
        let doublings = Swift.min(Swift.max(calls - 1, 0), 4)
        return Swift.min(.milliseconds(100 * (1 << doublings)), .seconds(1))
    }
}
