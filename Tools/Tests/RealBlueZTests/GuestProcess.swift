import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A process of the `Scripts/bluez-guest` guest (bluetoothd, `ripple-gatt-peripheral`), found through
/// `/proc` by its executable's name, which a test kills and starts again the way it was started: same
/// arguments, environment, directory, output and scheduling policy.
struct GuestProcess {
    enum Failure: Error, CustomStringConvertible {
        case notRunning(String)
        case stillRunning(String)
        case cannotStart(String, String)

        var description: String {
            switch self {
            case .notRunning(let name): "no \(name) process runs in the guest"
            case .stillRunning(let name): "\(name) did not exit"
            case .cannotStart(let name, let reason): "cannot start \(name) again: \(reason)"
            }
        }
    }

    let pid: pid_t
    let arguments: [String]
    let environment: [String: String]
    let directory: String
    /// Where its standard output goes (a file), if anywhere.
    let output: String?
    /// Its scheduling policy and priority when it was found.
    let startScheduling: (policy: Int32, priority: Int32)

    /// The running process whose executable is called `name` (the last path component of its first argument).
    static func find(_ name: String) throws -> GuestProcess {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { pid_t($0) } ?? []
        for pid in pids {
            let arguments = strings(in: "/proc/\(pid)/cmdline")
            guard let first = arguments.first, (first as NSString).lastPathComponent == name, !isZombie(pid) else {
                continue
            }
            let environment = Dictionary(
                strings(in: "/proc/\(pid)/environ").compactMap { entry -> (String, String)? in
                    guard let equals = entry.firstIndex(of: "=") else { return nil }
                    return (String(entry[..<equals]), String(entry[entry.index(after: equals)...]))
                },
                uniquingKeysWith: { $1 })
            let directory = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd")) ?? "/"
            let output = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/1")
            return GuestProcess(
                pid: pid, arguments: arguments, environment: environment, directory: directory,
                output: output.flatMap { $0.hasPrefix("/") ? $0 : nil }, startScheduling: scheduling(of: pid))
        }
        throw Failure.notRunning(name)
    }

    private static func strings(in file: String) -> [String] {
        guard let data = FileManager.default.contents(atPath: file) else { return [] }
        return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    private static func isZombie(_ pid: pid_t) -> Bool {
        guard let stat = FileManager.default.contents(atPath: "/proc/\(pid)/stat"),
            let text = String(data: stat, encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return true }
        return text[text.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }

    private var name: String { (arguments.first.map { ($0 as NSString).lastPathComponent }) ?? "?" }

    private var isGone: Bool { kill(pid, 0) != 0 || Self.isZombie(pid) }

    /// Sends `signal` and waits (up to 10 s) until the process has exited.
    func stop(with signal: Int32) async throws {
        kill(pid, signal)
        for _ in 0..<200 where !isGone { try await Task.sleep(for: .milliseconds(50)) }
        guard isGone else { throw Failure.stillRunning(name) }
    }

    /// Stops the process with `signal` (if it still runs), waits `pause`, then starts it again as it was
    /// started (its output appended to where its output went, its scheduling policy and priority kept):
    /// the new process.
    @discardableResult
    func restart(with signal: Int32, after pause: Duration = .zero) async throws -> GuestProcess {
        try await stop(with: signal)
        if pause > .zero { try await Task.sleep(for: pause) }
        let output = output.flatMap { FileHandle(forWritingAtPath: $0) } ?? FileHandle.nullDevice
        guard let executable = arguments.first else { throw Failure.cannotStart(name, "no arguments") }
        let process = Process()
        process.executableURL = URL(
            fileURLWithPath: executable, relativeTo: URL(fileURLWithPath: directory, isDirectory: true))
        process.arguments = Array(arguments.dropFirst())
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: directory, isDirectory: true)
        output.seekToEndOfFile()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw Failure.cannotStart(name, "\(error)")
        }
        let started = GuestProcess(
            pid: process.processIdentifier, arguments: arguments, environment: environment, directory: directory,
            output: self.output, startScheduling: startScheduling)
        if startScheduling.policy > 0 {
            _ = started.schedule(startScheduling.policy, priority: startScheduling.priority)
        }
        return started
    }

    /// Sets the process's scheduling policy (`SCHED_OTHER` with priority 0, `SCHED_FIFO` with 1…99).
    func schedule(_ policy: Int32, priority: Int32 = 0) -> Bool {
        var parameters = sched_param()
        parameters.sched_priority = priority
        return sched_setscheduler(pid, policy, &parameters) == 0
    }

    /// The process's scheduling policy and its priority.
    var scheduling: (policy: Int32, priority: Int32) { Self.scheduling(of: pid) }

    private static func scheduling(of pid: pid_t) -> (policy: Int32, priority: Int32) {
        var parameters = sched_param()
        _ = sched_getparam(pid, &parameters)
        return (sched_getscheduler(pid), parameters.sched_priority)
    }
}
