#if canImport(Glibc)
import Glibc
#endif

/// A Bluetooth radio's kill switch as the kernel reports it (`/sys/class/rfkill/rfkillN`).
public struct RFKillSwitch: Sendable, Hashable, CustomStringConvertible {
    /// The switch's name: `hci0`.
    public var name: String
    /// Blocked by software (`rfkill block bluetooth`; undone by `rfkill unblock bluetooth`).
    public var isSoftBlocked: Bool
    /// Blocked by hardware (a switch or a firmware setting; software cannot undo it).
    public var isHardBlocked: Bool

    /// "hci0: soft blocked".
    public var description: String {
        let state = isHardBlocked ? "hard blocked" : isSoftBlocked ? "soft blocked" : "unblocked"
        return "\(name): \(state)"
    }

    /// The Bluetooth switches under `directory` (the kernel's `/sys/class/rfkill`), by name; none when
    /// the directory cannot be read.
    static func bluetoothSwitches(in directory: String = "/sys/class/rfkill") -> [RFKillSwitch] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var switches: [RFKillSwitch] = []
        while let entry = readdir(stream) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard entryName.hasPrefix("rfkill") else { continue }
            let base = directory + "/" + entryName + "/"
            guard readLine(base + "type") == "bluetooth" else { continue }
            switches.append(
                RFKillSwitch(
                    name: readLine(base + "name") ?? entryName,
                    isSoftBlocked: readLine(base + "soft") == "1",
                    isHardBlocked: readLine(base + "hard") == "1"))
        }
        return switches.sorted { $0.name < $1.name }
    }

    /// The first line of the file at `path`, without its newline; nil when it cannot be read.
    private static func readLine(_ path: String) -> String? {
        guard let file = fopen(path, "re") else { return nil }  // "e": close-on-exec
        defer { fclose(file) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = fread(&buffer, 1, buffer.count, file)
        let text = String(decoding: buffer.prefix(count), as: UTF8.self)
        return text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init)
    }
}
