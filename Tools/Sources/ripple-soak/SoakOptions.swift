#if canImport(Glibc)
import Glibc
#endif

/// The soak's settings: from the command line (`--minutes`, `--socket-rate`, `--bus-rate`) and, for the
/// faults it can inject on purpose to show that it catches them, from `RIPPLE_SOAK_INJECT`.
struct SoakOptions: Sendable {
    /// How long the load runs.
    var minutes = 10
    /// Notifications per second over the `AcquireNotify` socket.
    var socketRate = 1_000.0
    /// Notifications per second over `StartNotify` (D-Bus signals).
    var busRate = 200.0
    /// Retains 64 KiB a second (`leak`).
    var injectsLeak = false
    /// Opens a descriptor a minute and keeps it (`descriptors`).
    var injectsDescriptorLeak = false
    /// Loses one value in 10,000 without counting it (`uncounted-drop`).
    var injectsUncountedDrop = false

    /// The options of `arguments` (without the program's name) and the environment.
    ///
    /// - Parameter arguments: the command line's arguments.
    /// - Returns: the options, or a message saying what is wrong.
    static func parse(_ arguments: [String]) -> Result<SoakOptions, UsageError> {
        var options = SoakOptions()
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let text = rest.popFirst() else { return .failure(UsageError("\(flag) needs a value")) }
            switch flag {
            case "--minutes":
                guard let minutes = Int(text), minutes >= 3 else {
                    return .failure(UsageError("--minutes takes a whole number of at least 3"))
                }
                options.minutes = minutes
            case "--socket-rate", "--bus-rate":
                guard let rate = Double(text), rate > 0 else { return .failure(UsageError("\(flag) takes a rate > 0")) }
                if flag == "--socket-rate" { options.socketRate = rate } else { options.busRate = rate }
            default:
                return .failure(UsageError("unknown option \(flag)"))
            }
        }
        let injected = getenv("RIPPLE_SOAK_INJECT").map { String(cString: $0) } ?? ""
        for fault in injected.split(separator: ",") {
            switch fault {
            case "leak": options.injectsLeak = true
            case "descriptors": options.injectsDescriptorLeak = true
            case "uncounted-drop": options.injectsUncountedDrop = true
            default: return .failure(UsageError("RIPPLE_SOAK_INJECT: unknown fault \(fault)"))
            }
        }
        return .success(options)
    }

    /// What is wrong with the command line.
    struct UsageError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
