import Foundation
import Ripple
import RippleDBus
import RippleLoop
import Testing

/// A private `dbus-daemon`: it serves connections at its own address, refuses what its policy denies, and
/// when stopped — or when the process that started it dies, by any signal — takes its process and folder with
/// it and disconnects its clients.
@Suite struct PrivateBusTests {
    /// Pings `name` on the bus, through `connection`.
    static func ping(_ name: String, through connection: DBusConnection) async throws {
        _ = try await connection.call(
            destination: name, path: .root, interface: "org.freedesktop.DBus.Peer", member: "Ping"
        ).firstValue
    }

    @Test func servesConnectionsAtItsOwnAddress() async throws {
        let fixture = try BusFixture()
        #expect(fixture.daemon.address.hasPrefix("unix:path=/"))
        #expect(fixture.daemon.bus == .address(fixture.daemon.address))
        #expect(kill(fixture.daemon.processID, 0) == 0)
        let owner = try fixture.connect()
        try await owner.takeName("org.example.Pinged")
        let client = try fixture.connect()
        try await Self.ping("org.example.Pinged", through: client)
    }

    @Test func refusesCallsToADeniedDestination() async throws {
        let daemon = try PrivateDBusDaemon(deniedDestinations: ["org.example.Denied"])
        defer { daemon.stop() }
        let loop = try EventLoopThread(name: "private-bus-test")
        defer { loop.stop() }
        let owner = try DBusConnection(bus: daemon.bus, loop: loop.loop)
        try await owner.takeName("org.example.Denied")
        let client = try DBusConnection(bus: daemon.bus, loop: loop.loop)
        await #expect {
            try await Self.ping("org.example.Denied", through: client)
        } throws: { error in
            (error as? DBusError)?.remoteName == "org.freedesktop.DBus.Error.AccessDenied"
        }
    }

    @Test func stoppingEndsTheProcessRemovesItsFolderAndDisconnectsClients() async throws {
        let daemon = try PrivateDBusDaemon()
        let socket = try #require(
            daemon.address.split(separator: ",").first?.dropFirst("unix:path=".count).description)
        #expect(FileManager.default.fileExists(atPath: socket))
        let loop = try EventLoopThread(name: "private-bus-stop-test")
        defer { loop.stop() }
        let client = try DBusConnection(bus: daemon.bus, loop: loop.loop)
        daemon.stop()
        daemon.stop()  // idempotent
        #expect(try await client.closed.firstValue == .disconnected)
        #expect(kill(daemon.processID, 0) == -1)
        #expect(!FileManager.default.fileExists(atPath: (socket as NSString).deletingLastPathComponent))
    }

    @Test func aStarterKilledBySIGKILLTakesItsDaemonAndFolderWithIt() async throws {
        // The child process starts a daemon, tells the process ids of the daemon and of its watcher (the
        // daemon's parent) and the address, and is killed at once.
        let result = try #require(
            await #expect(processExitsWith: .signal(SIGKILL), observing: [\.standardOutputContent]) {
                let daemon = try PrivateDBusDaemon()
                let watcher = Self.parentProcessID(of: daemon.processID) ?? 0
                let line = Array("\(daemon.processID) \(watcher) \(daemon.address)".utf8)
                _ = line.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
                withExtendedLifetime(daemon) { _ = kill(getpid(), SIGKILL) }
            })
        let words = String(decoding: result.standardOutputContent, as: UTF8.self).split(separator: " ")
        try #require(words.count == 3, "the child said: \(words)")
        let processID = try #require(Int32(words[0]))
        let watcher = try #require(Int32(words[1]).flatMap { $0 > 0 ? $0 : nil })
        let socket = try #require(words[2].split(separator: ",").first?.dropFirst("unix:path=".count).description)
        let folder = (socket as NSString).deletingLastPathComponent
        #expect(folder.hasPrefix("/tmp/ripple-dbus-"))
        // The watcher removes the folder after the daemon has exited and been reaped, then exits itself.
        #expect(await Self.exit(of: watcher, within: 30), "watcher \(watcher) still running after 30 s")
        #expect(!FileManager.default.fileExists(atPath: folder), "\(folder) still there")
        #expect(kill(processID, 0) == -1 && errno == ESRCH, "dbus-daemon \(processID) still running")
    }

    /// The parent of process `processID` (from `/proc`), or nil when it cannot be read.
    static func parentProcessID(of processID: Int32) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(processID)/stat", encoding: .utf8),
            let afterName = stat.range(of: ") ", options: .backwards)
        else { return nil }
        // After the name: the state, then the parent's id.
        let fields = stat[afterName.upperBound...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }

    /// Whether process `processID` (not a child of this one) ends within `seconds`: a pidfd becomes readable
    /// when it does, so the wait ends then, not on a poll. A process already gone has ended.
    ///
    /// Not inotify on its folder: the daemons of the tests running beside this one (one inotify instance
    /// each) use up the user's instances (`max_user_instances`, 128 by default), and `inotify_init1` then
    /// fails at once. The wait blocks a Dispatch thread, never a cooperative one.
    static func exit(of processID: Int32, within seconds: Int32) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                typealias PidfdOpen = @convention(c) (pid_t, UInt32) -> Int32
                guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pidfd_open") else {
                    return continuation.resume(returning: false)
                }
                let descriptor = unsafeBitCast(symbol, to: PidfdOpen.self)(processID, 0)
                guard descriptor >= 0 else { return continuation.resume(returning: errno == ESRCH) }
                defer { close(descriptor) }
                var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                var status: Int32
                repeat {
                    status = poll(&ready, 1, seconds * 1000)
                } while status < 0 && errno == EINTR
                continuation.resume(returning: status > 0)
            }
        }
    }

    @Test func aBusDescribesItselfForMessages() {
        #expect(DBusBus.system.description == "the system bus")
        #expect(DBusBus.session.description == "the session bus")
        #expect(DBusBus.address("unix:path=/tmp/bus").description == "the bus at unix:path=/tmp/bus")
    }
}
