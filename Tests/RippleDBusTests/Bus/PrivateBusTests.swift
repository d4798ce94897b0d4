import Foundation
import Ripple
import RippleDBus
import RippleLoop
import Testing

/// A private `dbus-daemon`: it serves connections at its own address, refuses what its policy denies, and
/// when stopped takes its process and folder with it and disconnects its clients.
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

    @Test func aBusDescribesItselfForMessages() {
        #expect(DBusBus.system.description == "the system bus")
        #expect(DBusBus.session.description == "the session bus")
        #expect(DBusBus.address("unix:path=/tmp/bus").description == "the bus at unix:path=/tmp/bus")
    }
}
