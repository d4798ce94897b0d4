import Ripple
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
