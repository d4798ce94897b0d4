import Ripple
import RippleLoop
import Testing

@testable import RippleDBus

#if canImport(Glibc)
import Glibc
#endif

@Suite struct DBusConnectionTests {
    @Test func connectionsGetDistinctUniqueNamesFromTheBus() async throws {
        let bus = try BusFixture()
        let first = try bus.connect()
        let second = try bus.connect()
        #expect(first.uniqueName.hasPrefix(":"))
        #expect(second.uniqueName.hasPrefix(":"))
        #expect(first.uniqueName != second.uniqueName)
        let reply = try await first.callBus("NameHasOwner", [.string(second.uniqueName)])
        #expect(reply.kind == .methodReturn)
        #expect(reply.body == [.boolean(true)])
    }

    /// libdbus reads the two buses' addresses from the environment once per process, so this is the only
    /// test that connects to `.system` or `.session`: both point at the private bus here.
    @Test func theSystemAndSessionBusesAreFoundThroughTheEnvironment() async throws {
        let bus = try BusFixture()
        setenv("DBUS_SYSTEM_BUS_ADDRESS", bus.daemon.address, 1)
        setenv("DBUS_SESSION_BUS_ADDRESS", bus.daemon.address, 1)
        let system = try DBusConnection(bus: .system, loop: bus.loop)
        let session = try DBusConnection(bus: .session, loop: bus.loop)
        let reply = try await system.callBus("NameHasOwner", [.string(session.uniqueName)])
        #expect(reply.body == [.boolean(true)])
        system.close()
        session.close()
    }

    @Test func connectingToANonexistentBusThrowsConnectionFailed() throws {
        let loopThread = try EventLoopThread()
        defer { loopThread.stop() }
        #expect {
            try DBusConnection(bus: .address("unix:path=/nonexistent/ripple-bus"), loop: loopThread.loop)
        } throws: { error in
            guard case DBusError.connectionFailed(let name, _) = error else { return false }
            return name == "org.freedesktop.DBus.Error.NoServer" || name == "org.freedesktop.DBus.Error.FileNotFound"
        }
    }

    @Test func aRemoteErrorCarriesItsNameAndMessage() async throws {
        let bus = try BusFixture()
        let connection = try bus.connect()
        await #expect(
            throws: DBusError.remote(
                name: "org.freedesktop.DBus.Error.NameHasNoOwner",
                message: "Could not get owner of name 'com.example.Nobody': no such name")
        ) {
            _ = try await connection.callBus("GetNameOwner", [.string("com.example.Nobody")])
        }
        let unknownMethod = await #expect(throws: DBusError.self) {
            _ = try await connection.callBus("NoSuchMethod")
        }
        #expect(unknownMethod?.remoteName == "org.freedesktop.DBus.Error.UnknownMethod")
    }

    @Test func aCallToANameNobodyOwnsFailsWithServiceUnknown() async throws {
        let bus = try BusFixture()
        let connection = try bus.connect()
        let error = await #expect(throws: DBusError.self) {
            _ = try await connection.call(
                destination: "com.example.Absent", path: .root, interface: "com.example.Absent", member: "Hello"
            ).firstValue
        }
        #expect(error?.remoteName == "org.freedesktop.DBus.Error.ServiceUnknown")
    }

    @Test func anInvalidDestinationFailsThePublisherWithoutSendingAnything() async throws {
        let bus = try BusFixture()
        let connection = try bus.connect()
        let error = await #expect(throws: DBusError.self) {
            _ = try await connection.call(destination: "not a name", path: .root, interface: nil, member: "X")
                .firstValue
        }
        guard case .invalidArgument? = error else {
            Issue.record("expected invalidArgument, got \(String(describing: error))")
            return
        }
    }

    @Test func aCallThatGetsNoAnswerTimesOut() async throws {
        let bus = try BusFixture()
        let peer = try SilentPeer(address: bus.daemon.address, name: "com.example.Silent")
        defer { peer.close() }
        let connection = try bus.connect()
        await #expect(throws: DBusError.timedOut) {
            _ = try await connection.call(
                destination: "com.example.Silent", path: .root, interface: "com.example.Silent", member: "Wait",
                timeout: .milliseconds(50)
            ).firstValue
        }
    }

    /// A caller's time limit past what `Duration.components` can split (`.seconds(Int64.max)` plus a margin)
    /// is no limit, not a trap.
    @Test func aCallWithATimeoutBeyondInt64SecondsWaitsForItsAnswer() async throws {
        let bus = try BusFixture()
        let connection = try bus.connect()
        let reply = try await connection.call(
            destination: "org.freedesktop.DBus", path: try DBusObjectPath("/org/freedesktop/DBus"),
            interface: "org.freedesktop.DBus", member: "GetId", timeout: .seconds(Int64.max) + .seconds(1)
        ).firstValue
        #expect(reply.body.count == 1)
        #expect(reply.body.first?.string?.count == 32)
    }

    @Test func aServiceVanishingMidCallFailsTheCallWithNoReply() async throws {
        let bus = try BusFixture()
        let peer = try SilentPeer(address: bus.daemon.address, name: "com.example.Vanishing")
        let connection = try bus.connect()
        let recorder = Recorder(
            connection.call(
                destination: "com.example.Vanishing", path: .root, interface: "com.example.Vanishing",
                member: "Wait", timeout: nil))
        // The call is on its way once a later round trip has come back.
        try await connection.settle()
        _ = try await connection.callBus("GetId")
        peer.close()
        await recorder.waitForCompletion()
        #expect(recorder.values.isEmpty)
        guard case .failure(let error)? = recorder.completion else {
            Issue.record("expected a failure, got \(String(describing: recorder.completion))")
            return
        }
        #expect(error.remoteName == "org.freedesktop.DBus.Error.NoReply")
    }

    @Test func aCancelledCallEmitsNothing() async throws {
        let bus = try BusFixture()
        let peer = try SilentPeer(address: bus.daemon.address, name: "com.example.Slow")
        defer { peer.close() }
        let connection = try bus.connect()
        let recorder = Recorder(
            connection.call(destination: "com.example.Slow", path: .root, interface: nil, member: "Wait", timeout: nil))
        _ = try await connection.callBus("GetId")
        recorder.cancel()
        peer.close()
        _ = try await connection.callBus("GetId")
        #expect(recorder.values.isEmpty)
        #expect(recorder.completion == nil)
        let pending = await onLoop(connection) { $0.core.pendingCallCount }
        #expect(pending == 0)
    }

    @Test func closingFailsWaitingCallsAndLaterOnesWithDisconnected() async throws {
        let bus = try BusFixture()
        let peer = try SilentPeer(address: bus.daemon.address, name: "com.example.Held")
        defer { peer.close() }
        let connection = try bus.connect()
        let closed = Recorder(connection.closed.setFailureType(to: DBusError.self))
        let waiting = Recorder(
            connection.call(destination: "com.example.Held", path: .root, interface: nil, member: "Wait", timeout: nil))
        _ = try await connection.callBus("GetId")
        connection.close()
        await waiting.waitForCompletion()
        #expect(waiting.completion == .failure(.disconnected))
        await closed.waitForCompletion()
        #expect(closed.values == [.closedLocally])
        #expect(closed.completion == .finished)
        await #expect(throws: DBusError.disconnected) {
            _ = try await connection.callBus("GetId")
        }
    }

    @Test func theBusGoingAwayClosesTheConnectionAsDisconnected() async throws {
        let bus = try BusFixture()
        let connection = try bus.connect()
        let closed = Recorder(connection.closed.setFailureType(to: DBusError.self))
        let signals = Recorder(connection.signals(interface: "com.example.Never", member: "Happens"))
        try await connection.settle()
        bus.daemon.stop()
        await closed.waitForCompletion()
        #expect(closed.values == [.disconnected])
        await signals.waitForCompletion()
        #expect(signals.completion == .failure(.disconnected))
        // Subscribing after the close ends at once.
        let late = Recorder(connection.signals(interface: "com.example.Never", member: "Happens"))
        await late.waitForCompletion()
        #expect(late.completion == .failure(.disconnected))
    }
}

/// Runs `body` on the connection's loop thread and returns what it returns.
func onLoop<T: Sendable>(_ connection: DBusConnection, _ body: @escaping @Sendable (DBusConnection) -> T) async -> T {
    await withCheckedContinuation { continuation in
        connection.loop.schedule { continuation.resume(returning: body(connection)) }
    }
}
