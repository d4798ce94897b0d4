import Ripple
import Testing

@testable import RippleDBus

/// ``DBusConnection/byteArrayPropertyChanges(from:interface:property:buffering:)``: the fast path for a
/// byte-array property's changes.
@Suite(.timeLimit(.minutes(1))) struct DBusByteArrayPropertyTests {
    static let service = "com.example.Sensors"
    static let interface = "com.example.Characteristic1"
    static let first = (try? DBusObjectPath("/com/example/sensor0/char1")) ?? .root
    static let second = (try? DBusObjectPath("/com/example/sensor1/char1")) ?? .root

    /// Emits a `PropertiesChanged` of `interface` at `path`.
    static func change(
        _ emitter: DBusConnection, _ path: DBusObjectPath, interface: String = interface,
        _ changed: [String: DBusValue],
        invalidated: [String] = []
    ) throws {
        try emitter.emitSignal(
            path: path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
            arguments: [
                .string(interface),
                .dictionary(
                    key: .string, value: .variant,
                    changed.sorted { $0.key < $1.key }.map {
                        DBusDictionaryEntry(key: .string($0.key), value: .variant($0.value))
                    }),
                .array(.string, invalidated.map(DBusValue.string)),
            ])
    }

    @Test func aChangeOfThePropertyAloneComesWithItsPathAndBytesAndIsClaimed() async throws {
        let bus = try BusFixture()
        let listener = try bus.connect()
        let service = try bus.connect()
        try await service.takeName(Self.service)
        let values = Recorder(
            listener.byteArrayPropertyChanges(from: Self.service, interface: Self.interface, property: "Value"))
        let everything = Recorder(
            listener.signals(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"))
        try await listener.settle()
        try Self.change(service, Self.first, ["Value": .bytes([1, 2, 3])])
        try Self.change(service, Self.second, ["Value": .bytes([])])
        try Self.change(service, Self.first, ["Value": .bytes(Array(0...243))])
        // A marker the fast path does not take: it arrives after the three, in the bus's order.
        try Self.change(service, Self.first, interface: "com.example.Other", ["Value": .bytes([9])])
        await values.waitForValues(3)
        await everything.waitForValues(1)
        #expect(
            values.values == [
                DBusByteArrayPropertyChange(path: Self.first, bytes: [1, 2, 3]),
                DBusByteArrayPropertyChange(path: Self.second, bytes: []),
                DBusByteArrayPropertyChange(path: Self.first, bytes: Array(0...243)),
            ])
        // The claimed signals reached no other subscription; the marker did.
        #expect(everything.values.count == 1)
        #expect(everything.values.first?.body.first == .string("com.example.Other"))
    }

    @Test func aChangeOfSeveralPropertiesTakesTheOrdinaryRouteAndStillComes() async throws {
        let bus = try BusFixture()
        let listener = try bus.connect()
        let service = try bus.connect()
        try await service.takeName(Self.service)
        let values = Recorder(
            listener.byteArrayPropertyChanges(from: Self.service, interface: Self.interface, property: "Value"))
        let everything = Recorder(
            listener.signals(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"))
        try await listener.settle()
        try Self.change(service, Self.first, ["Value": .bytes([7]), "Notifying": .boolean(true)])
        try Self.change(service, Self.first, ["Value": .bytes([8])], invalidated: ["Flags"])
        try Self.change(service, Self.first, ["Notifying": .boolean(false)])
        // The property first, another after it.
        try Self.change(service, Self.first, ["Value": .bytes([9]), "Zeta": .bytes([])])
        await everything.waitForValues(4)
        await values.waitForValues(3)
        #expect(values.values.map(\.bytes) == [[7], [8], [9]])
    }

    @Test func anotherSenderOrAnotherTypeIsNeverTaken() async throws {
        let bus = try BusFixture()
        let listener = try bus.connect()
        let service = try bus.connect()
        let impostor = try bus.connect()
        try await service.takeName(Self.service)
        let values = Recorder(
            listener.byteArrayPropertyChanges(from: Self.service, interface: Self.interface, property: "Value"))
        let everything = Recorder(
            listener.signals(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"))
        try await listener.settle()
        try Self.change(impostor, Self.first, ["Value": .bytes([6, 6, 6])])
        try Self.change(service, Self.first, ["Value": .string("not bytes")])
        try Self.change(service, Self.first, ["Value": .array(.uint16, [.uint16(1)])])
        // Nothing changed, and a body of another signature (no invalidated list): not the fast path's.
        try Self.change(service, Self.first, [:])
        try service.emitSignal(
            path: Self.first, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
            arguments: [
                .string(Self.interface),
                .dictionary(
                    key: .string, value: .variant,
                    [DBusDictionaryEntry(key: .string("Value"), value: .variant(.bytes([7])))]),
            ])
        try Self.change(service, Self.first, ["Value": .bytes([1])])
        await values.waitForValues(1)
        await everything.waitForValues(5)
        #expect(values.values.map(\.bytes) == [[1]])
        #expect(
            everything.values.map(\.sender) == [impostor.uniqueName] + Array(repeating: service.uniqueName, count: 4))
    }

    /// The bytes the fast path, looking for `property` of `interface`, reads from a `PropertiesChanged`
    /// body of `sentInterface` changing `changes` (in that order) and invalidating `invalidated`; nil when it
    /// leaves the signal to the ordinary route.
    static func fastPathBytes(
        interface: String = interface, sentInterface: String? = nil, property: String,
        changes: [(String, DBusValue)], invalidated: [String] = []
    ) throws -> [UInt8]? {
        let message = try EncodedMessage(
            signal: DBusSignalName(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"),
            path: first,
            body: [
                .string(sentInterface ?? interface),
                .dictionary(
                    key: .string, value: .variant,
                    changes.map { DBusDictionaryEntry(key: .string($0.0), value: .variant($0.1)) }),
                .array(.string, invalidated.map(DBusValue.string)),
            ])
        return interface.withCString { interfaceCharacters in
            property.withCString { propertyCharacters in
                DBusByteArrayPropertyTap.bytes(
                    in: message.raw, interface: interfaceCharacters, interfaceLength: interface.utf8.count,
                    property: propertyCharacters, propertyLength: property.utf8.count
                ).map(Array.init)
            }
        }
    }

    /// The property's entry alone is taken, whatever the lengths of the interface, the key and the value
    /// (each moving the padding after it); an entry after it, before it, or an invalidated property sends
    /// the signal the ordinary way.
    @Test func onlyADictionaryOfThePropertysEntryAloneIsTaken() throws {
        for interface in ["a.b", "a.bc", "a.bcd", "a.bcde", "a.bcdef", "a.bcdefg", "a.bcdefgh", Self.interface] {
            for property in ["V", "Va", "Val", "Valu", "Value", "Value6", "Value67", "Value678", "Value6789"] {
                for count in [0, 1, 3, 4, 20, 244] {
                    let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
                    #expect(
                        try Self.fastPathBytes(
                            interface: interface, property: property, changes: [(property, .bytes(bytes))]) == bytes)
                    #expect(
                        try Self.fastPathBytes(
                            interface: interface, property: property,
                            changes: [(property, .bytes(bytes)), ("Z", .bytes([]))]) == nil)
                    #expect(
                        try Self.fastPathBytes(
                            interface: interface, property: property,
                            changes: [(property, .bytes(bytes)), (property, .bytes(bytes))]) == nil)
                    #expect(
                        try Self.fastPathBytes(
                            interface: interface, property: property,
                            changes: [("Notifying", .boolean(true)), (property, .bytes(bytes))]) == nil)
                    #expect(
                        try Self.fastPathBytes(
                            interface: interface, property: property, changes: [(property, .bytes(bytes))],
                            invalidated: ["Flags"]) == nil)
                }
            }
        }
    }

    /// Another interface (a longer one, a shorter one, one of the same length), another key, a value of
    /// another type or no change at all: the ordinary route.
    @Test func anythingElseIsLeftToTheOrdinaryRoute() throws {
        let value: [(String, DBusValue)] = [("Value", .bytes([1, 2, 3]))]
        #expect(try Self.fastPathBytes(property: "Value", changes: value) == [1, 2, 3])
        for other in [Self.interface + "x", String(Self.interface.dropLast()), "com.example.Characteristic2"] {
            #expect(try Self.fastPathBytes(sentInterface: other, property: "Value", changes: value) == nil)
        }
        for key in ["Valu", "Values", "value", "Vamue"] {
            #expect(try Self.fastPathBytes(property: "Value", changes: [(key, .bytes([1, 2, 3]))]) == nil)
        }
        for other: DBusValue in [
            .array(.uint16, [.uint16(1)]), .array(.int32, [.int32(1)]), .string("ay"), .byte(1),
            .array(.array(.byte), [.bytes([1])]),
        ] {
            #expect(try Self.fastPathBytes(property: "Value", changes: [("Value", other)]) == nil)
        }
        #expect(try Self.fastPathBytes(property: "Value", changes: []) == nil)
        #expect(try Self.fastPathBytes(property: "Value", changes: [], invalidated: ["Value"]) == nil)
    }

    @Test func cancellingRemovesTheFastPath() async throws {
        let bus = try BusFixture()
        let listener = try bus.connect()
        let service = try bus.connect()
        try await service.takeName(Self.service)
        let values = Recorder(
            listener.byteArrayPropertyChanges(from: Self.service, interface: Self.interface, property: "Value"))
        let everything = Recorder(
            listener.signals(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"))
        try await listener.settle()
        try Self.change(service, Self.first, ["Value": .bytes([1])])
        await values.waitForValues(1)
        values.cancel()
        try Self.change(service, Self.first, ["Value": .bytes([2])])
        await everything.waitForValues(1)
        #expect(everything.values.first?.body.count == 3)
        #expect(values.values.map(\.bytes) == [[1]])
    }
}
