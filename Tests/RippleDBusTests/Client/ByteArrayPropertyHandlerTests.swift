import Ripple
import RippleTestSupport
import Testing

@testable import RippleDBus

/// ``DBusConnection/handleByteArrayPropertyChanges(from:interface:property:handler:)``: the fast path handed
/// straight to a handler, with the same claims as the publisher and an end on cancellation.
@Suite(.timeLimit(.minutes(1))) struct ByteArrayPropertyHandlerTests {
    typealias Change = DBusByteArrayPropertyChange

    @Test func changesReachTheHandlerInOrderOnTheLoopThreadUntilCancelled() async throws {
        let bus = try BusFixture()
        let listener = try bus.connect()
        let service = try bus.connect()
        try await service.takeName(DBusByteArrayPropertyTests.service)
        let (changes, continuation) = AsyncStream.makeStream(of: (Change, Bool).self)
        let loop = listener.loop
        let registration = listener.handleByteArrayPropertyChanges(
            from: DBusByteArrayPropertyTests.service, interface: DBusByteArrayPropertyTests.interface,
            property: "Value"
        ) { path, bytes in continuation.yield((Change(path: path, bytes: bytes), loop.isInLoopThread)) }
        let everything = Recorder(
            listener.signals(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"))
        try await listener.settle()
        let first = DBusByteArrayPropertyTests.first
        let second = DBusByteArrayPropertyTests.second
        try DBusByteArrayPropertyTests.change(service, first, ["Value": .bytes([1, 2, 3])])
        try DBusByteArrayPropertyTests.change(service, second, ["Value": .bytes([])])
        // Several properties at once: the ordinary route, decoded, still handed over.
        try DBusByteArrayPropertyTests.change(service, first, ["Value": .bytes([4]), "Notifying": .boolean(true)])
        var received: [Change] = []
        var onLoopThread: [Bool] = []
        for await (change, here) in changes {
            received.append(change)
            onLoopThread.append(here)
            if received.count == 3 { break }
        }
        #expect(
            received == [
                Change(path: first, bytes: [1, 2, 3]), Change(path: second, bytes: []), Change(path: first, bytes: [4]),
            ])
        #expect(onLoopThread == [true, true, true])
        // The claimed two reached no other subscription; the third, routed the ordinary way, did.
        await everything.waitForValues(1)
        #expect(everything.values.count == 1)

        registration.cancel()
        try await listener.settle()
        try DBusByteArrayPropertyTests.change(service, first, ["Value": .bytes([5])])
        await everything.waitForValues(2)
        continuation.finish()
        var after: [Change] = []
        for await (change, _) in changes { after.append(change) }
        // Cancelled: the fast path is gone, so the signal takes the ordinary route and the handler sees nothing.
        #expect(after == [])
        #expect(everything.values.count == 2)
    }

    /// The fast path refills the array of the last value for the next one of the same length, but only
    /// when nothing kept it: a value the handler keeps never changes.
    @Test func aValueTheHandlerKeepsIsNeverChangedByTheNextOnes() async throws {
        let bus = try BusFixture()
        let listener = try bus.connect()
        let service = try bus.connect()
        try await service.takeName(DBusByteArrayPropertyTests.service)
        // Each value as it was on arrival (a copy of its own), and the value itself when the handler keeps it
        // (every other one).
        let (changes, continuation) = AsyncStream.makeStream(of: (arrived: [UInt8], kept: [UInt8]?).self)
        let count = LockedBox(0)
        let registration = listener.handleByteArrayPropertyChanges(
            from: DBusByteArrayPropertyTests.service, interface: DBusByteArrayPropertyTests.interface,
            property: "Value"
        ) { _, bytes in
            let keeps = count.withLock { count in
                count += 1
                return count % 2 == 1
            }
            continuation.yield((bytes.map { $0 }, keeps ? bytes : nil))
        }
        defer { registration.cancel() }
        try await listener.settle()
        let sent: [[UInt8]] = (1...6).map { [UInt8](repeating: $0, count: 3) }
        for bytes in sent {
            try DBusByteArrayPropertyTests.change(service, DBusByteArrayPropertyTests.first, ["Value": .bytes(bytes)])
        }
        var arrived: [[UInt8]] = []
        var kept: [[UInt8]] = []
        for await change in changes {
            arrived.append(change.arrived)
            if let value = change.kept { kept.append(value) }
            if arrived.count == sent.count { break }
        }
        #expect(arrived == sent)
        #expect(kept == [[1, 1, 1], [3, 3, 3], [5, 5, 5]])
    }

    @Test func cancellingBeforeTheLoopInstallsItInstallsNothing() async throws {
        let bus = try BusFixture()
        let listener = try bus.connect()
        let service = try bus.connect()
        try await service.takeName(DBusByteArrayPropertyTests.service)
        let (changes, continuation) = AsyncStream.makeStream(of: Change.self)
        listener.handleByteArrayPropertyChanges(
            from: DBusByteArrayPropertyTests.service, interface: DBusByteArrayPropertyTests.interface,
            property: "Value"
        ) { path, bytes in continuation.yield(Change(path: path, bytes: bytes)) }
        .cancel()
        let everything = Recorder(
            listener.signals(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"))
        try await listener.settle()
        try DBusByteArrayPropertyTests.change(service, DBusByteArrayPropertyTests.first, ["Value": .bytes([1])])
        await everything.waitForValues(1)
        continuation.finish()
        var received: [Change] = []
        for await change in changes { received.append(change) }
        #expect(received == [])
        #expect(everything.values.count == 1)
    }
}
