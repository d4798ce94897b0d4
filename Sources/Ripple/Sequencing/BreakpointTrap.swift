#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The `SIGTRAP` that `breakpoint()` raises, ending the process when no debugger is attached, as in Combine.
///
/// On Apple platforms `raise(SIGTRAP)` stops in an attached debugger and otherwise ends the process. On Linux
/// the Swift runtime's backtracer (on unless `SWIFT_BACKTRACE=enable=no`) handles `SIGTRAP`: it prints a
/// backtrace, sets the signal back to its default action and returns, so `raise` returns and the process
/// would go on. ``raise()`` notices that case (a handler was installed before the trap and the default action
/// is back after it) and, when no tracer is attached, raises `SIGTRAP` once more, which now ends the process.
/// A handler of the program's own that stays installed, an ignored `SIGTRAP`, an attached debugger, and any
/// failure to read the signal state or `/proc/self/status` leave the process running after the first trap.
enum BreakpointTrap {
    /// What `SIGTRAP` is set to do.
    enum Disposition: Equatable {
        /// The default action: the process ends.
        case endProcess
        /// `SIGTRAP` is ignored.
        case ignore
        /// A handler runs; `resetsItself` when it was installed with `SA_RESETHAND`.
        case handler(resetsItself: Bool)
    }

    /// Raises `SIGTRAP`; when the Swift runtime's backtracer handled it and no debugger is attached, raises it
    /// again so that the process ends.
    static func raise() {
        #if os(Linux) && canImport(Glibc)
        let before = currentDisposition()
        _ = Glibc.raise(SIGTRAP)
        if endsTheProcessAgain(before: before, after: currentDisposition(), tracerPID: currentTracerPID) {
            _ = Glibc.raise(SIGTRAP)
        }
        #elseif canImport(Darwin)
        _ = Darwin.raise(SIGTRAP)
        #else
        _ = Musl.raise(SIGTRAP)
        #endif
    }

    /// Whether a trap that returned should be raised once more to end the process.
    ///
    /// - Parameters:
    ///   - before: `SIGTRAP`'s disposition before the trap, `nil` when it could not be read.
    ///   - after: its disposition after the trap returned, `nil` when it could not be read.
    ///   - tracerPID: reads the `TracerPid` of `/proc/self/status` (`0`: no debugger; `nil` when it could not be
    ///     read); called only when the dispositions say the backtracer handled the trap.
    /// - Returns: `true` only when a handler that does not reset itself was installed, the default action is
    ///   back, and no tracer is attached.
    static func endsTheProcessAgain(before: Disposition?, after: Disposition?, tracerPID: () -> Int?) -> Bool {
        before == .handler(resetsItself: false) && after == .endProcess && tracerPID() == 0
    }

    /// Reads the `TracerPid` field of the text of `/proc/<pid>/status`.
    ///
    /// - Parameter status: the file's bytes (or their start, as long as it holds the field's whole line).
    /// - Returns: the tracer's process id (`0` when none), or `nil` when the field is missing or malformed.
    static func tracerPID(inStatus status: some Collection<UInt8>) -> Int? {
        let name = Array("TracerPid:".utf8)
        var lineStart = status.startIndex
        while lineStart != status.endIndex {
            let lineEnd = status[lineStart...].firstIndex(of: UInt8(ascii: "\n"))
            let line = status[lineStart..<(lineEnd ?? status.endIndex)]
            if line.starts(with: name) {
                guard lineEnd != nil else { return nil }
                return decimal(line.dropFirst(name.count))
            }
            guard let lineEnd else { return nil }
            lineStart = status.index(after: lineEnd)
        }
        return nil
    }

    /// Parses blanks followed by a decimal number and nothing else.
    private static func decimal(_ text: some Collection<UInt8>) -> Int? {
        let digits = text.drop(while: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") })
        guard !digits.isEmpty, digits.count <= 18 else { return nil }
        var value = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    #if os(Linux) && canImport(Glibc)
    /// `SIGTRAP`'s current disposition, or `nil` when `sigaction` fails.
    private static func currentDisposition() -> Disposition? {
        var action = sigaction()
        guard sigaction(SIGTRAP, nil, &action) == 0 else { return nil }
        switch unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) {
        case 0: return .endProcess
        case 1: return .ignore
        default: return .handler(resetsItself: action.sa_flags & Int32(truncatingIfNeeded: SA_RESETHAND) != 0)
        }
    }

    /// The `TracerPid` of this process, or `nil` when `/proc/self/status` cannot be read or parsed.
    private static func currentTracerPID() -> Int? {
        let descriptor = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // The field is near the start of the file; 4 KiB holds it with room to spare.
        var bytes = [UInt8](repeating: 0, count: 4096)
        var count = 0
        while count < bytes.count {
            let read = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(descriptor, buffer.baseAddress! + count, buffer.count - count)
            }
            if read > 0 {
                count += read
            } else if read == 0 {
                break
            } else if errno != EINTR {
                return nil
            }
        }
        return tracerPID(inStatus: bytes[..<count])
    }
    #endif
}
