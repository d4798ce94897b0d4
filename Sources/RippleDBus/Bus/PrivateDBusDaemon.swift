import CLibUV
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A `dbus-daemon` of its own, started by this process on a socket in a fresh temporary directory and
/// stopped by ``stop()`` or when the object is released: a private bus for tests, examples and
/// simulators, where nothing can reach the system bus.
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
            (processID, address) = try Self.spawnDaemon(
                configurationPath: configurationPath, logPath: directory + "/daemon.log")
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
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        kill(processID, SIGTERM)
        var status: Int32 = 0
        while waitpid(processID, &status, 0) == -1 && errno == EINTR {}
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

    /// Spawns `dbus-daemon --nofork --print-address=<pipe>` and reads the address it prints.
    /// Starts the daemon with its standard error in `logPath` (its complaints — as root, that it cannot
    /// raise its descriptor limit — stay out of the caller's output; they are quoted if it fails to start).
    private static func spawnDaemon(configurationPath: String, logPath: String) throws(DBusError) -> (Int32, String) {
        var pipeEnds: [Int32] = [-1, -1]
        // Close-on-exec from the start: a daemon another thread spawns meanwhile inherits neither end.
        guard ripple_pipe_close_on_exec(&pipeEnds) == 0 else {
            throw .connectionFailed(name: "pipe2", message: String(cString: strerror(errno)))
        }
        let readEnd = pipeEnds[0]
        let writeEnd = pipeEnds[1]
        defer { close(readEnd) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // The daemon prints its address on its standard output, which is the pipe; its own inherited
        // descriptors stay closed (CLOEXEC) apart from the three standard ones.
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        posix_spawn_file_actions_addopen(&actions, 2, logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let arguments = ["dbus-daemon", "--config-file=\(configurationPath)", "--nofork", "--print-address=1"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        argv.append(nil)
        defer { argv.forEach { free($0) } }
        // The daemon starts with no signal blocked and default handlers, whatever the spawning thread has
        // (libdispatch's threads block most signals, which would make it ignore SIGTERM).
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
        var pid: pid_t = 0
        let status = posix_spawnp(&pid, "dbus-daemon", &actions, &attributes, argv, environ)
        close(writeEnd)
        guard status == 0 else {
            throw .connectionFailed(name: "posix_spawnp", message: "dbus-daemon: \(String(cString: strerror(status)))")
        }

        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 512)
        while !output.contains(UInt8(ascii: "\n")) {
            let count = chunk.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            if count > 0 {
                output.append(contentsOf: chunk[..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        let line = String(decoding: output.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        guard !line.isEmpty else {
            kill(pid, SIGTERM)
            var exitStatus: Int32 = 0
            waitpid(pid, &exitStatus, 0)
            let log = readLog(logPath)
            throw .connectionFailed(
                name: "dbus-daemon", message: "exited without printing its address" + (log.isEmpty ? "" : ": \(log)"))
        }
        return (pid, line)
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
