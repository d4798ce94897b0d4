import Ripple
import Testing

@testable import RippleDBus

/// A test-only service: answers every method call with the call's own arguments.
private final class EchoHandler: MethodCallHandling {
    func handle(_ call: DBusMessage, core: ConnectionCore) -> Bool {
        _ = try? core.send(DBusMessage.methodReturn(replyingTo: call, body: call.body))
        return true
    }
}

@Suite struct DBusRoundTripTests {
    /// Sends `body` to an echo service through the bus and returns what comes back.
    private func echo(_ body: [DBusValue]) async throws -> [DBusValue] {
        let bus = try BusFixture()
        let service = try bus.connect()
        let client = try bus.connect()
        await onLoop(service) { $0.core.methodCallHandler = EchoHandler() }
        let reply = try await client.call(
            destination: service.uniqueName, path: DBusObjectPath("/echo"), interface: "com.example.Echo",
            member: "Echo", arguments: body
        ).firstValue
        return reply.body
    }

    @Test func everyBasicTypeCrossesTheBusUnchanged() async throws {
        let body: [DBusValue] = [
            .byte(0), .byte(255), .boolean(true), .boolean(false),
            .int16(.min), .int16(.max), .uint16(.max), .int32(.min), .int32(.max), .uint32(.max),
            .int64(.min), .int64(.max), .uint64(.max), .double(-0.5), .double(.infinity), .double(1e-300),
            .string(""), .string("héllo, wörld ✓"), .objectPath(try DBusObjectPath("/org/bluez/hci0")),
            .signature(try DBusSignature("a{sv}(iay)")),
        ]
        #expect(try await echo(body) == body)
    }

    @Test func containersAndDeepNestingCrossTheBusUnchanged() async throws {
        let properties = DBusValue.dictionary(
            key: .string, value: .variant,
            [
                DBusDictionaryEntry(key: .string("RSSI"), value: .variant(.int16(-60))),
                DBusDictionaryEntry(
                    key: .string("ManufacturerData"),
                    value: .variant(
                        .dictionary(
                            key: .uint16, value: .variant,
                            [DBusDictionaryEntry(key: .uint16(0x004C), value: .variant(.bytes([0x02, 0x15])))]))),
            ])
        let managedObjects = DBusValue.dictionary(
            key: .objectPath,
            value: .dictionary(key: .string, value: .dictionary(key: .string, value: .variant)),
            [
                DBusDictionaryEntry(
                    key: .objectPath(try DBusObjectPath("/org/bluez/hci0/dev_00_11_22_33_44_55")),
                    value: .dictionary(
                        key: .string, value: .dictionary(key: .string, value: .variant),
                        [
                            DBusDictionaryEntry(key: .string("org.bluez.Device1"), value: properties)
                        ]))
            ])
        var nested = DBusValue.int32(7)
        for depth in 0..<30 {
            nested = depth.isMultiple(of: 2) ? .structure([nested, .string("\(depth)")]) : .variant(nested)
        }
        let body: [DBusValue] = [
            .bytes(Array(repeating: 0xA5, count: 1 << 20)), .bytes([]),
            .array(.structure([.int32, .string]), []),
            .array(.dictionary(key: .string, value: .variant), []),
            .array(.string, [.string("a"), .string("b")]),
            properties, managedObjects, nested,
            .variant(.variant(.variant(.boolean(true)))),
        ]
        #expect(try await echo(body) == body)
    }

    @Test func callsFromManyThreadsEachGetTheirOwnReply() async throws {
        let bus = try BusFixture()
        let service = try bus.connect()
        let client = try bus.connect()
        await onLoop(service) { $0.core.methodCallHandler = EchoHandler() }
        let path = try DBusObjectPath("/echo")
        let destination = service.uniqueName
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<100 {
                        let reply = try await client.call(
                            destination: destination, path: path, interface: "com.example.Echo", member: "Echo",
                            arguments: [.int32(Int32(task)), .int32(Int32(index))]
                        ).firstValue
                        #expect(reply.body == [.int32(Int32(task)), .int32(Int32(index))])
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(await onLoop(client) { $0.core.pendingCallCount } == 0)
    }
}
