import CDBus
import CLibUV
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A `dbus-daemon` of its own, started by this process on a socket in a fresh temporary directory and
/// stopped by ``stop()``, when the object is released, or when this process ends, however it ends: a private
/// bus for tests, examples and simulators, where nothing can reach the system bus.
///
/// ```swift
/// let daemon = try PrivateDBusDaemon()
/// let connection = try DBusConnection(bus: daemon.bus)
/// ```
///
/// The bus allows every connection to own any name and to send anything to anyone, and it accepts
/// messages and queues up to 1 GiB per connection, so floods and large transfers are limited by the test,
/// not by the daemon's policy. It runs `dbus-daemon` from `PATH` (Debian: the `dbus` package).
public final class PrivateDBusDaemon: Sendable {
    /// The D-Bus address clients connect to, such as `unix:path=/tmp/ripple-dbus-XXXXXX/bus,guid=…`.
    public let address: String
    /// The process id of the `dbus-daemon`.
    public let processID: Int32
    /// The process id of the watcher that stops the daemon when the lifeline ends (a child of this process;
    /// the daemon is the watcher's child).
    private let watcherID: Int32
    /// The write end of the lifeline, held by this process only: closing it (``stop()``, or the kernel when
    /// this process ends) makes the watcher stop the daemon.
    private let lifeline: Int32
    /// The temporary directory holding the socket and configuration, removed on ``stop()``.
    private let directory: String
    /// Whether ``stop()`` has run.
    private let stopped = Atomic<Bool>(false)

    /// The bus to hand to ``DBusConnection/init(bus:loop:)``.
    public var bus: DBusBus { .address(address) }

    /// Starts a `dbus-daemon` and waits until it listens. Its policy refuses method calls to the names in
    /// `deniedDestinations` (`org.freedesktop.DBus.Error.AccessDenied`), as a system bus refuses a
    /// process its policy does not let in; by default it refuses nothing.
    ///
    /// The daemon dies with this process: a small watcher process (`/bin/sh`) stops it and removes its
    /// directory as soon as this process ends, even by SIGKILL, so that a killed test run leaves no daemon.
    ///
    /// - Parameter deniedDestinations: the bus names whose method calls the policy refuses.
    /// - Throws: ``DBusError/connectionFailed(name:message:)`` when the temporary directory cannot be made,
    ///   `dbus-daemon` cannot be started, or it exits before printing its address.
    public init(deniedDestinations: [String] = []) throws(DBusError) {
        var template = Array("/tmp/ripple-dbus-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return mkdtemp(base) != nil
        }
        guard made else {
            throw .connectionFailed(name: "mkdtemp", message: String(cString: strerror(errno)))
        }
        directory = template.withUnsafeBufferPointer { buffer in
            String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        let configurationPath = directory + "/bus.conf"
        do {
            let configuration = Self.configuration(
                socketPath: directory + "/bus", deniedDestinations: deniedDestinations)
            try Self.write(configuration, to: configurationPath)
            (watcherID, lifeline, processID, address) = try Self.spawnDaemon(
                configurationPath: configurationPath, directory: directory, logPath: directory + "/daemon.log")
        } catch {
            Self.removeDirectory(directory)
            throw error
        }
    }

    deinit {
        stop()
    }

    /// Stops the daemon (SIGTERM, then waits for it to exit) and removes its directory. Every connection to
    /// it sees its bus disconnect. Idempotent.
    ///
    /// The daemon also stops when this process ends without calling it, by any signal: see
    /// ``init(deniedDestinations:)``.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // The watcher sends SIGTERM, waits for the daemon and removes the directory, then exits.
        close(lifeline)
        Self.wait(for: watcherID)
        Self.removeDirectory(directory)
    }

    // MARK: Starting

    private static func configuration(socketPath: String, deniedDestinations: [String]) -> String {
        let denials = deniedDestinations.map { name in
            let escaped = name.filter { $0.isLetter || $0.isNumber || $0 == "." || $0 == "_" || $0 == "-" || $0 == ":" }
            return "<deny send_destination=\"\(escaped)\" send_type=\"method_call\"/>"
        }.joined()
        return """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(socketPath)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
                \(denials)
              </policy>
              <limit name="max_incoming_bytes">1073741824</limit>
              <limit name="max_outgoing_bytes">1073741824</limit>
              <limit name="max_message_size">134217728</limit>
              <limit name="max_replies_per_connection">100000</limit>
              <limit name="max_match_rules_per_connection">50000</limit>
            </busconfig>
            """
    }

    private static func write(_ text: String, to path: String) throws(DBusError) {
        guard let file = fopen(path, "we") else {  // "e": close-on-exec
            throw .connectionFailed(name: "fopen", message: String(cString: strerror(errno)))
        }
        let bytes = Array(text.utf8)
        let written = fwrite(bytes, 1, bytes.count, file)
        fclose(file)
        guard written == bytes.count else {
            throw .connectionFailed(name: "fwrite", message: "could not write \(path)")
        }
    }

    /// The shell script of the watcher (`/bin/sh -c`; `$1` the configuration, `$2` the directory). It starts
    /// the daemon, which prints its address and its process id on the watcher's standard output (the address
    /// pipe), then waits for its standard input (the lifeline) to end, and then stops the daemon, waits for it
    /// and removes the directory. The daemon starts before the watcher ignores the signals a terminal sends its
    /// whole process group, so that it keeps their default actions (an asynchronous command of a
    /// non-interactive shell ignores SIGINT and SIGQUIT anyway and reads `/dev/null`); the watcher ignores
    /// them, so that only the lifeline's end stops it. `read` returns non-zero only at the end of input.
    private static let watcherScript = """
        dbus-daemon --config-file="$1" --nofork --print-address=1 --print-pid=1 </dev/null &
        daemon=$!
        trap '' HUP INT QUIT TERM PIPE
        exec >&-
        while read -r _; do :; done
        kill -TERM "$daemon" 2>/dev/null
        wait "$daemon"
        rm -f "$2/bus" "$2/bus.conf" "$2/daemon.log"
        rmdir "$2" 2>/dev/null
        """

    /// Spawns the watcher, which spawns `dbus-daemon --nofork`, and reads the address and process id the
    /// daemon prints.
    ///
    /// The daemon dies with this process, however this process ends (SIGKILL included): the watcher holds the
    /// read end of the lifeline, a close-on-exec pipe whose write end only this process holds; the kernel
    /// closes it when this process ends, and the watcher then stops the daemon and removes its directory.
    /// (`PR_SET_PDEATHSIG` would follow the spawning *thread*, which in a thread pool ends long before the
    /// process.) The daemon's and the watcher's standard error go to `logPath` (its complaints — as root,
    /// that it cannot raise its descriptor limit — stay out of the caller's output; they are quoted if it
    /// fails to start).
    ///
    /// - Returns: The watcher's process id, the lifeline's write end, the daemon's process id and address.
    private static func spawnDaemon(
        configurationPath: String, directory: String, logPath: String
    ) throws(DBusError) -> (watcher: Int32, lifeline: Int32, daemon: Int32, address: String) {
        // Close-on-exec from the start: a process another thread spawns meanwhile inherits neither end of
        // either pipe (a copy of the lifeline's write end elsewhere would keep the daemon alive).
        var addressEnds: [Int32] = [-1, -1]
        guard ripple_pipe_close_on_exec(&addressEnds) == 0 else {
            throw .connectionFailed(name: "pipe2", message: String(cString: strerror(errno)))
        }
        var lifelineEnds: [Int32] = [-1, -1]
        guard ripple_pipe_close_on_exec(&lifelineEnds) == 0 else {
            let failure = String(cString: strerror(errno))
            close(addressEnds[0])
            close(addressEnds[1])
            throw .connectionFailed(name: "pipe2", message: failure)
        }
        let readEnd = addressEnds[0]
        defer { close(readEnd) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // The watcher reads the lifeline on its standard input and hands the address pipe to the daemon as
        // standard output (dup2's copies are not close-on-exec).
        posix_spawn_file_actions_adddup2(&actions, lifelineEnds[0], 0)
        posix_spawn_file_actions_adddup2(&actions, addressEnds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // Nothing else: a descriptor of this process that is not close-on-exec (a test runner's pipe, another
        // library's) would otherwise live as long as the daemon (glibc 2.34 and later; before, nothing closes).
        _ = ripple_spawn_close_from(&actions, 3)
        let arguments = ["sh", "-c", watcherScript, "ripple-dbus-watcher", configurationPath, directory]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        argv.append(nil)
        defer { argv.forEach { free($0) } }
        // The watcher (and so the daemon) starts with no signal blocked and default handlers, whatever the
        // spawning thread has (libdispatch's threads block most signals, which would make the daemon ignore
        // SIGTERM).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var watcher: pid_t = 0
        let status = posix_spawn(&watcher, "/bin/sh", &actions, &attributes, argv, environ)
        close(addressEnds[1])
        close(lifelineEnds[0])
        let lifeline = lifelineEnds[1]
        guard status == 0 else {
            close(lifeline)
            throw .connectionFailed(name: "posix_spawn", message: "/bin/sh: \(String(cString: strerror(status)))")
        }

        // Two lines: the address, then the process id. The pipe ends early when the daemon exits.
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 512)
        while output.count(where: { $0 == UInt8(ascii: "\n") }) < 2 {
            let count = chunk.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            if count > 0 {
                output.append(contentsOf: chunk[..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        let lines = output.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        guard lines.count >= 3, !lines[0].isEmpty, let daemon = Int32(lines[1]), daemon > 0 else {
            let log = readLog(logPath)  // before the watcher, stopping, removes it
            close(lifeline)
            wait(for: watcher)
            throw .connectionFailed(
                name: "dbus-daemon", message: "exited without printing its address" + (log.isEmpty ? "" : ": \(log)"))
        }
        return (watcher, lifeline, daemon, lines[0])
    }

    /// Waits for the child `processID` to exit.
    private static func wait(for processID: Int32) {
        var status: Int32 = 0
        while waitpid(processID, &status, 0) == -1 && errno == EINTR {}
    }

    /// The first kilobyte of the daemon's log, trimmed.
    private static func readLog(_ path: String) -> String {
        guard let file = fopen(path, "re") else { return "" }
        defer { fclose(file) }
        var bytes = [UInt8](repeating: 0, count: 1024)
        let count = fread(&bytes, 1, bytes.count, file)
        return String(decoding: bytes.prefix(count), as: UTF8.self).trimmingSpaces
    }

    private static func removeDirectory(_ directory: String) {
        unlink(directory + "/daemon.log")
        unlink(directory + "/bus.conf")
        unlink(directory + "/bus")
        rmdir(directory)
    }
}

extension String {
    /// Without leading and trailing spaces and newlines.
    fileprivate var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
