import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Waiting for a process that is not this one's child — one whose parent was killed — to be gone.
public enum ProcessEnd {
    /// Whether process `pid` no longer runs: it does not exist, or it is a zombie that nobody reaps (a killed
    /// parent's children are adopted by a reaper that may take its time).
    ///
    /// - Parameter pid: The process.
    /// - Returns: Whether it has ended.
    public static func hasEnded(_ pid: pid_t) -> Bool {
        guard let stat = FileManager.default.contents(atPath: "/proc/\(pid)/stat"),
            let text = String(data: stat, encoding: .utf8), let close = text.lastIndex(of: ")")
        else { return true }
        return text[text.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }

    /// Whether `condition` holds within `seconds`, looking every 50 ms.
    ///
    /// - Parameters:
    ///   - seconds: How long to wait at most.
    ///   - condition: What is waited for.
    /// - Returns: Whether it held in time.
    public static func within(_ seconds: Int, _ condition: () -> Bool) async -> Bool {
        for _ in 0..<(seconds * 20) {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return condition()
    }
}
