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
        // The child process starts a daemon, tells its process id and address, and is killed at once.
        let result = try #require(
            await #expect(processExitsWith: .signal(SIGKILL), observing: [\.standardOutputContent]) {
                let daemon = try PrivateDBusDaemon()
                let line = Array("\(daemon.processID) \(daemon.address)".utf8)
                _ = line.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
                withExtendedLifetime(daemon) { _ = kill(getpid(), SIGKILL) }
            })
        let words = String(decoding: result.standardOutputContent, as: UTF8.self).split(separator: " ")
        let processID = try #require(words.first.flatMap { Int32($0) })
        let socket = try #require(
            words.last?.split(separator: ",").first?.dropFirst("unix:path=".count).description)
        let folder = (socket as NSString).deletingLastPathComponent
        #expect(folder.hasPrefix("/tmp/ripple-dbus-"))
        // The watcher removes the folder after the daemon has exited and been reaped.
        #expect(await Self.removal(of: folder, within: 30), "\(folder) still there after 30 s")
        #expect(kill(processID, 0) == -1 && errno == ESRCH, "dbus-daemon \(processID) still running")
    }

    /// Whether `folder` is gone within `seconds` (inotify: the wait ends when it is removed, not on a poll).
    /// The wait blocks a Dispatch thread, never a cooperative one.
    static func removal(of folder: String, within seconds: Int32) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let watch = inotify_init1(Int32(IN_CLOEXEC))
                guard watch >= 0 else { return continuation.resume(returning: false) }
                defer { close(watch) }
                if inotify_add_watch(watch, folder, UInt32(IN_DELETE_SELF)) < 0 {
                    return continuation.resume(returning: errno == ENOENT)
                }
                var ready = pollfd(fd: watch, events: Int16(POLLIN), revents: 0)
                _ = poll(&ready, 1, seconds * 1000)
                continuation.resume(returning: !FileManager.default.fileExists(atPath: folder))
            }
        }
    }

    @Test func aBusDescribesItselfForMessages() {
        #expect(DBusBus.system.description == "the system bus")
        #expect(DBusBus.session.description == "the session bus")
        #expect(DBusBus.address("unix:path=/tmp/bus").description == "the bus at unix:path=/tmp/bus")
    }
}
