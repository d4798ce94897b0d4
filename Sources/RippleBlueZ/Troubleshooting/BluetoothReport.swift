/// What ``Central/troubleshoot()`` found: each check with what it saw and, when it failed, how to fix it.
///
/// A check that depends on one that failed is not run: it is listed as skipped, with the reason. So the
/// report names one cause per chain and one fix for it (a bus that refuses access is not also reported
/// as "no adapters").
public struct BluetoothReport: Sendable, CustomStringConvertible {
    /// One thing checked.
    public struct Check: Sendable, Hashable {
        /// How a check came out.
        public enum Status: Sendable, Hashable {
            /// It is as it should be.
            case passed
            /// It is not; ``Check/fix`` says what to do.
            case failed
            /// It was not run because a check it depends on failed; `reason` names that check.
            case skipped(reason: String)
        }

        /// What was checked: "bluetoothd on the bus".
        public var name: String
        /// How it came out.
        public var status: Status
        /// What was seen (for a skipped check, why it was skipped).
        public var detail: String
        /// What to do about it, when it failed.
        public var fix: String?

        /// Whether it passed.
        public var passed: Bool { status == .passed }

        /// Creates a check that was run.
        /// - Parameters:
        ///   - name: What was checked.
        ///   - passed: Whether it is as it should be.
        ///   - detail: What was seen.
        ///   - fix: What to do about it; kept only when the check failed.
        public init(name: String, passed: Bool, detail: String, fix: String?) {
            self.name = name
            self.status = passed ? .passed : .failed
            self.detail = detail
            self.fix = passed ? nil : fix
        }

        /// Creates a check that was skipped because `failedCheck` failed.
        /// - Parameters:
        ///   - name: What would have been checked.
        ///   - failedCheck: The name of the failed check it depends on.
        public init(skipped name: String, because failedCheck: String) {
            self.name = name
            self.status = .skipped(reason: "\(failedCheck) failed")
            self.detail = "not checked: \(failedCheck) failed"
            self.fix = nil
        }
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

    /// The fix of the first check that failed: the first cause's, the one to apply first.
    public var firstFix: String? { checks.first { $0.status == .failed }?.fix }

    /// The report as lines a person can read: ✓ or ✗ per check, with the fixes.
    public var description: String {
        var lines = checks.map { check in
            let mark =
                switch check.status {
                case .passed: "✓"
                case .failed: "✗"
                case .skipped: "–"
                }
            return "\(mark) \(check.name): \(check.detail)" + (check.fix.map { "\n    fix: \($0)" } ?? "")
        }
        if let bluezVersion { lines.append("  BlueZ \(bluezVersion)") }
        if !interfaces.isEmpty { lines.append("  interfaces: " + interfaces.joined(separator: ", ")) }
        return lines.joined(separator: "\n")
    }
}
