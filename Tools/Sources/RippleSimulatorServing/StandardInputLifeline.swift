import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Standard input as a lifeline: when it reaches its end, the process stops as on SIGTERM.
///
/// Start a process with a pipe on its standard input whose write end only the starting process holds (and
/// never writes to), and the end of input arrives when the starter closes that end or ends in any way —
/// SIGKILL included, since the kernel closes a dead process's files. Unlike `PR_SET_PDEATHSIG` it needs no
/// parent–child bond (it holds through a shell or `env` in between, and when the thread that spawned the
/// process ends before the process that holds the pipe), and it cannot be missed: the end of input stays
/// readable however late the watcher looks, while a starter that died before `prctl` ran sends no signal.
///
/// A terminal on standard input is not watched: no starter holds it, and reading it would stop a background
/// job (`command --exit-when-stdin-closes &` in an interactive shell) with SIGTTIN and take the keystrokes
/// meant for the shell. The process says so on standard error and runs until a signal stops it (a terminal
/// that goes away sends SIGHUP).
public enum StandardInputLifeline {
    /// How long the process may take to stop in order once standard input has closed; then it exits at once.
    public static let grace: Duration = .seconds(5)

    /// Starts reading standard input on a thread of its own and dropping what arrives. At its end (or when it
    /// cannot be read) the process is asked to stop: ``Termination/wait()`` returns
    /// ``Termination/Cause/standardInputClosed`` unless a signal came first. A process still running ``grace``
    /// later exits with status 1. When standard input is a terminal, it is left alone and the process says so
    /// on standard error (see the type's note). Calling it again does nothing more.
    public static func watch() {
        guard isatty(STDIN_FILENO) == 0 else {
            _ = terminalNote
            return
        }
        _ = watcher
    }

    /// What standard error says when standard input is a terminal.
    private static let terminalMessage =
        "standard input is a terminal: --exit-when-stdin-closes does not watch it (stop with Ctrl-C or SIGTERM)"

    private static let terminalNote: Void = {
        Output.error(terminalMessage)
    }()

    private static let watcher: Void = {
        let thread = Thread {
            waitForTheEnd()
            Termination.request(.standardInputClosed)
            Thread.sleep(forTimeInterval: Double(grace.components.seconds))
            Output.error("still running \(grace) after standard input closed: exiting")
            _exit(1)
        }
        thread.name = "stdin-lifeline"
        thread.start()
    }()

    /// Reads standard input until its end or an error other than an interruption.
    private static func waitForTheEnd() {
        var buffer = [UInt8](repeating: 0, count: 512)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count > 0 || (count < 0 && errno == EINTR) { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                // Standard input was left non-blocking by whoever shares it: wait until there is something.
                var ready = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                _ = poll(&ready, 1, -1)
                continue
            }
            return
        }
    }
}
