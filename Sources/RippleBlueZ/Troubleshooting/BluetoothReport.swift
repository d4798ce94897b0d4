/// What ``Central/troubleshoot()`` found: each check with what it saw and, when it failed, how to fix it.
public struct BluetoothReport: Sendable, CustomStringConvertible {
    /// One thing checked.
    public struct Check: Sendable, Hashable {
        /// What was checked: "bluetoothd on the bus".
        public var name: String
        /// Whether it is as it should be.
        public var passed: Bool
        /// What was seen.
        public var detail: String
        /// What to do about it, when it failed.
        public var fix: String?
    }

    /// The checks, in the order a person would look.
    public var checks: [Check]
    /// The adapters bluetoothd has.
    public var adapters: [BluetoothAdapter]
    /// The Bluetooth kill switches the kernel has.
    public var killSwitches: [RFKillSwitch]
    /// The BlueZ version an adapter reports (from its `Modalias`), if any: "5.66".
    public var bluezVersion: String?
    /// The BlueZ interfaces present on the bus (`org.bluez.GattManager1`, …), sorted.
    public var interfaces: [String]

    /// Whether every check passed.
    public var isHealthy: Bool { checks.allSatisfy(\.passed) }

    /// The report as lines a person can read: ✓ or ✗ per check, with the fixes.
    public var description: String {
        var lines = checks.map { check in
            "\(check.passed ? "✓" : "✗") \(check.name): \(check.detail)" + (check.fix.map { "\n    fix: \($0)" } ?? "")
        }
        if let bluezVersion { lines.append("  BlueZ \(bluezVersion)") }
        if !interfaces.isEmpty { lines.append("  interfaces: " + interfaces.joined(separator: ", ")) }
        return lines.joined(separator: "\n")
    }
}
