import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The other end of a tool's standard input, held by this process alone: a tool started with
/// `--exit-when-stdin-closes` on it stops when the lifeline is cut — by ``cut()``, when the lifeline is
/// deinitialised, or when this process ends, however it ends (the kernel closes a killed process's files).
///
/// Both ends are made close-on-exec (a socket pair: Swift's Glibc module has no `pipe2`), so no other process
/// that this one starts meanwhile inherits a copy of the end that would keep the tool's input open.
public final class Lifeline: Sendable {
    private let held: Mutex<Int32>

    /// Starts `process` with the lifeline's other end as its standard input.
    ///
    /// - Parameter process: A process not started yet; its `standardInput` is replaced.
    /// - Throws: The error of `socketpair(2)` (as `POSIXError`) or of `Process.run()`.
    public init(running process: Process) throws {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        // The process gets a copy of the child's end as its descriptor 0 (dup2 clears close-on-exec there).
        let childEnd = FileHandle(fileDescriptor: ends[0], closeOnDealloc: false)
        process.standardInput = childEnd
        defer { close(ends[0]) }
        do {
            try process.run()
        } catch {
            close(ends[1])
            throw error
        }
        held = Mutex(ends[1])
    }

    /// Closes this process's end: the tool reads the end of its standard input. Cutting twice does nothing more.
    public func cut() {
        held.withLock { end in
            if end >= 0 { close(end) }
            end = -1
        }
    }

    deinit {
        cut()
    }
}
