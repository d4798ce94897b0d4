import Ripple
import RippleLoop
import Synchronization
import Testing

@testable import RippleDBus

#if canImport(Glibc)
import Glibc
#endif

/// ``DBusConnection/outgoingByteCount`` and ``DBusConnection/whenOutgoingBytes(atMost:perform:)``: what
/// libdbus keeps queued while the bus does not read. The bus that does not read is a dbus-daemon stopped
/// for a while (SIGSTOP): the socket fills, then libdbus's queue grows.
@Suite struct DBusOutgoingQueueTests {
    private static let payload: [DBusValue] = [.bytes(Array(repeating: 7, count: 512))]

    @Test func theQueueGrowsWhileTheBusReadsNothingAndTheHandlerComesOnceItHasRead() async throws {
        let bus = try BusFixture()
        let connection = try bus.connect()
        try await connection.settle()
        #expect(connection.outgoingByteCount == 0)
        let path = try DBusObjectPath("/org/ripple/Queue")
        let tick = try DBusSignalName(interface: "org.ripple.Queue", member: "Tick")
        let daemon = bus.daemon.processID
        #expect(kill(daemon, SIGSTOP) == 0)
        var stopped = true
        defer { if stopped { kill(daemon, SIGCONT) } }
        // On the loop thread, where each signal is handed to libdbus at once: until 64 KiB wait in its queue.
        let (sent, queued) = try await bus.loop.perform { () throws(DBusError) -> (Int, Int) in
            var sent = 0
            while connection.outgoingByteCount < 65_536, sent < 1_000_000 {
                try connection.emitSignal(path: path, tick, arguments: Self.payload)
                sent += 1
            }
            return (sent, connection.outgoingByteCount)
        }
        #expect(sent < 1_000_000)
        #expect(queued >= 65_536)
        let calls = Atomic<Int>(0)
        let (drained, continuation) = AsyncStream.makeStream(of: Int.self)
        connection.whenOutgoingBytes(atMost: 1024) {
            _ = calls.wrappingAdd(1, ordering: .relaxed)
            continuation.yield(connection.outgoingByteCount)
        }
        // The bus reads nothing: two turns of the loop later, the handler has not come.
        await bus.loop.perform {}
        await bus.loop.perform {}
        #expect(calls.load(ordering: .relaxed) == 0)
        #expect(connection.outgoingByteCount == queued)
        #expect(kill(daemon, SIGCONT) == 0)
        stopped = false
        var sizes = drained.makeAsyncIterator()
        let size = await sizes.next()
        #expect(size.map { $0 <= 1024 } == true)
        // Once: more writes do not call it again.
        try connection.emitSignal(path: path, tick, arguments: Self.payload)
        try await connection.settle()
        await bus.loop.perform {}
        #expect(calls.load(ordering: .relaxed) == 1)
        #expect(connection.outgoingByteCount == 0)
    }

    @Test func aHandlerForASizeTheQueueIsWithinComesOnALaterTurn() async throws {
        let bus = try BusFixture()
        let connection = try bus.connect()
        try await connection.settle()
        let calls = Atomic<Int>(0)
        let (done, continuation) = AsyncStream.makeStream(of: Void.self)
        // Registered on the loop thread: not called from inside the registration.
        let calledAtOnce = await bus.loop.perform { () -> Int in
            connection.whenOutgoingBytes(atMost: 0) {
                _ = calls.wrappingAdd(1, ordering: .relaxed)
                continuation.yield()
            }
            return calls.load(ordering: .relaxed)
        }
        #expect(calledAtOnce == 0)
        var iterator = done.makeAsyncIterator()
        _ = await iterator.next()
        #expect(calls.load(ordering: .relaxed) == 1)
    }

    @Test func aClosedConnectionNeverCallsTheHandler() async throws {
        let bus = try BusFixture()
        let connection = try bus.connect()
        try await connection.settle()
        let daemon = bus.daemon.processID
        let path = try DBusObjectPath("/org/ripple/Queue")
        let tick = try DBusSignalName(interface: "org.ripple.Queue", member: "Tick")
        #expect(kill(daemon, SIGSTOP) == 0)
        var stopped = true
        defer { if stopped { kill(daemon, SIGCONT) } }
        try await bus.loop.perform { () throws(DBusError) in
            var sent = 0
            while connection.outgoingByteCount < 65_536, sent < 1_000_000 {
                try connection.emitSignal(path: path, tick, arguments: Self.payload)
                sent += 1
            }
        }
        let calls = Atomic<Int>(0)
        connection.whenOutgoingBytes(atMost: 0) { _ = calls.wrappingAdd(1, ordering: .relaxed) }
        connection.close()
        // And one registered after the close.
        connection.whenOutgoingBytes(atMost: Int.max) { _ = calls.wrappingAdd(1, ordering: .relaxed) }
        #expect(kill(daemon, SIGCONT) == 0)
        stopped = false
        #expect(await connection.closed.values.first { _ in true } == .closedLocally)
        await bus.loop.perform {}
        await bus.loop.perform {}
        #expect(calls.load(ordering: .relaxed) == 0)
    }
}
