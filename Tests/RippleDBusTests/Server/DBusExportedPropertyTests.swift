import Dispatch
import Ripple
import RippleLoop
import Synchronization
import Testing

@testable import RippleDBus

@Suite struct DBusExportedPropertyTests {
    static let interface = "com.example.Lamp"
    static let properties = "org.freedesktop.DBus.Properties"

    static func lamp(validate: (@Sendable (DBusValue) throws(DBusError) -> Void)? = nil) throws -> DBusExportedObject {
        try DBusExportedObject(
            path: .test("/lamp"),
            interfaces: [
                DBusInterface(
                    name: interface,
                    properties: [
                        DBusProperty(name: "Name", initialValue: .string("lamp")),
                        DBusProperty(
                            name: "Brightness", access: .readWrite, initialValue: .uint32(10), validateWrite: validate),
                        DBusProperty(name: "Secret", access: .write, initialValue: .string("s3cret")),
                        DBusProperty(
                            name: "Color", access: .readWrite, initialValue: .string("white"),
                            changeEmission: .invalidates),
                        DBusProperty(name: "Quiet", access: .readWrite, initialValue: .int32(0), changeEmission: .none),
                    ])
            ])
    }

    static func changed(_ values: [String: DBusValue], invalidated: [String] = [], interface: String = interface)
        -> [DBusValue]
    {
        [.string(interface), .stringVariantDictionary(values), .array(.string, invalidated.map(DBusValue.string))]
    }

    @Test func getAndGetAllAnswerFromTheStoredValues() async throws {
        let pair = try ServerPair()
        try pair.server.export(Self.lamp())
        #expect(
            try await pair.call("/lamp", Self.properties, "Get", [.string(Self.interface), .string("Name")])
                == [.variant(.string("lamp"))])
        #expect(
            try await pair.call("/lamp", Self.properties, "GetAll", [.string(Self.interface)]) == [
                .stringVariantDictionary([
                    "Name": .string("lamp"), "Brightness": .uint32(10), "Color": .string("white"), "Quiet": .int32(0),
                ])
            ])
        #expect(
            try await pair.call("/lamp", Self.properties, "GetAll", [.string("org.freedesktop.DBus.Introspectable")])
                == [.stringVariantDictionary([:])])
        // An empty interface name searches every interface.
        #expect(
            try await pair.call("/lamp", Self.properties, "Get", [.string(""), .string("Brightness")])
                == [.variant(.uint32(10))])
    }

    @Test func anAbsentPropertyIsLeftOutUntilSetAndAfterInvalidation() async throws {
        let pair = try ServerPair()
        let object = try DBusExportedObject(
            path: .test("/radio"),
            interfaces: [
                DBusInterface(
                    name: Self.interface,
                    properties: [
                        DBusProperty(name: "Name", initialValue: .string("radio")),
                        DBusProperty(absent: "RSSI", type: .int16),
                    ])
            ])
        try pair.server.export(object)
        let changes = try await pair.signals(Self.properties, "PropertiesChanged")
        let get: [DBusValue] = [.string(Self.interface), .string("RSSI")]
        #expect(
            try await pair.errorName("/radio", Self.properties, "Get", get)
                == "org.freedesktop.DBus.Error.UnknownProperty")
        #expect(
            try await pair.call("/radio", Self.properties, "GetAll", [.string(Self.interface)])
                == [.stringVariantDictionary(["Name": .string("radio")])])
        #expect(try object.invalidateProperty("RSSI", of: Self.interface) == false)
        try object.setProperty("RSSI", of: Self.interface, to: .int16(-60))
        #expect(try await pair.call("/radio", Self.properties, "Get", get) == [.variant(.int16(-60))])
        #expect(try object.invalidateProperty("RSSI", of: Self.interface))
        #expect(
            try await pair.call("/radio", Self.properties, "GetAll", [.string(Self.interface)])
                == [.stringVariantDictionary(["Name": .string("radio")])])
        #expect(throws: DBusError.self) { try object.invalidateProperty("Nope", of: Self.interface) }
        await changes.waitForValues(2)
        #expect(
            changes.values.map(\.body) == [
                Self.changed(["RSSI": .int16(-60)]), Self.changed([:], invalidated: ["RSSI"]),
            ])
    }

    @Test func propertyErrorsHaveTheSpecificationsNames() async throws {
        let pair = try ServerPair()
        try pair.server.export(Self.lamp())
        let interface = DBusValue.string(Self.interface)
        #expect(
            try await pair.errorName("/lamp", Self.properties, "Get", [interface, .string("Nope")])
                == "org.freedesktop.DBus.Error.UnknownProperty")
        #expect(
            try await pair.errorName("/lamp", Self.properties, "Get", [.string("com.example.None"), .string("Name")])
                == "org.freedesktop.DBus.Error.UnknownInterface")
        #expect(
            try await pair.errorName("/lamp", Self.properties, "GetAll", [.string("com.example.None")])
                == "org.freedesktop.DBus.Error.UnknownInterface")
        #expect(
            try await pair.errorName("/lamp", Self.properties, "Get", [interface, .string("Secret")])
                == "org.freedesktop.DBus.Error.AccessDenied")
        #expect(
            try await pair.errorName(
                "/lamp", Self.properties, "Set", [interface, .string("Name"), .variant(.string("x"))])
                == "org.freedesktop.DBus.Error.PropertyReadOnly")
        #expect(
            try await pair.errorName(
                "/lamp", Self.properties, "Set", [interface, .string("Brightness"), .variant(.string("bright"))])
                == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(
            try await pair.errorName(
                "/lamp", Self.properties, "Set", [interface, .string("Nope"), .variant(.int32(1))])
                == "org.freedesktop.DBus.Error.UnknownProperty")
        #expect(
            try await pair.errorName("/lamp", Self.properties, "Get", [interface])
                == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(
            try await pair.errorName("/lamp", Self.properties, "Frobnicate")
                == "org.freedesktop.DBus.Error.UnknownMethod")
    }

    @Test func setStoresTheValueAndEmitsPropertiesChangedBeforeReplying() async throws {
        let pair = try ServerPair()
        let lamp = try Self.lamp()
        try pair.server.export(lamp)
        let changes = try await pair.signals(Self.properties, "PropertiesChanged")
        let interface = DBusValue.string(Self.interface)
        #expect(
            try await pair.call(
                "/lamp", Self.properties, "Set", [interface, .string("Brightness"), .variant(.uint32(80))]) == [])
        #expect(changes.values.map(\.body) == [Self.changed(["Brightness": .uint32(80)])])
        #expect(changes.values.first?.path == .test("/lamp"))
        #expect(lamp.property("Brightness", of: Self.interface) == .uint32(80))
        // Setting the same value again changes nothing and emits nothing.
        #expect(
            try await pair.call(
                "/lamp", Self.properties, "Set", [interface, .string("Brightness"), .variant(.uint32(80))]) == [])
        // Invalidating and silent properties.
        #expect(
            try await pair.call(
                "/lamp", Self.properties, "Set", [interface, .string("Color"), .variant(.string("red"))]) == [])
        #expect(
            try await pair.call("/lamp", Self.properties, "Set", [interface, .string("Quiet"), .variant(.int32(3))])
                == [])
        #expect(
            try await pair.call(
                "/lamp", Self.properties, "Set", [interface, .string("Secret"), .variant(.string("new"))]) == [])
        try await pair.client.settle()
        #expect(
            changes.values.map(\.body) == [
                Self.changed(["Brightness": .uint32(80)]),
                Self.changed([:], invalidated: ["Color"]),
                Self.changed(["Secret": .string("new")]),
            ])
        #expect(lamp.property("Quiet", of: Self.interface) == .int32(3))
        #expect(lamp.property("Secret", of: Self.interface) == .string("new"))
    }

    @Test func validateWriteRefusesWithItsError() async throws {
        let pair = try ServerPair()
        let lamp = try Self.lamp { value throws(DBusError) in
            guard case .uint32(let level) = value, level <= 100 else {
                throw .remote(name: "com.example.Error.TooBright", message: "at most 100")
            }
        }
        try pair.server.export(lamp)
        let interface = DBusValue.string(Self.interface)
        #expect(
            try await pair.error(
                "/lamp", Self.properties, "Set", [interface, .string("Brightness"), .variant(.uint32(500))])
                == .remote(name: "com.example.Error.TooBright", message: "at most 100"))
        #expect(lamp.property("Brightness", of: Self.interface) == .uint32(10))
        #expect(
            try await pair.call(
                "/lamp", Self.properties, "Set", [interface, .string("Brightness"), .variant(.uint32(50))]) == [])
        #expect(lamp.property("Brightness", of: Self.interface) == .uint32(50))
    }

    @Test func localChangesEmitInOrderAndBatchesEmitOneSignal() async throws {
        let pair = try ServerPair()
        let lamp = try Self.lamp()
        // Changes while not exported emit nothing.
        try lamp.setProperty("Name", of: Self.interface, to: .string("before"))
        try pair.server.export(lamp)
        let changes = try await pair.signals(Self.properties, "PropertiesChanged")
        try lamp.setProperty("Name", of: Self.interface, to: .string("desk"))
        try lamp.setProperty("Brightness", of: Self.interface, to: .uint32(1))
        try lamp.updateProperties(
            of: Self.interface,
            [
                "Name": .string("floor"), "Brightness": .uint32(2), "Color": .string("blue"), "Quiet": .int32(9),
            ])
        try lamp.updateProperties(of: Self.interface, ["Name": .string("floor")])
        try lamp.setProperty("Name", of: Self.interface, to: .string("last"))
        await changes.waitForValues(4)
        #expect(
            changes.values.map(\.body) == [
                Self.changed(["Name": .string("desk")]),
                Self.changed(["Brightness": .uint32(1)]),
                Self.changed(["Name": .string("floor"), "Brightness": .uint32(2)], invalidated: ["Color"]),
                Self.changed(["Name": .string("last")]),
            ])
        #expect(
            try await pair.call("/lamp", Self.properties, "Get", [.string(Self.interface), .string("Quiet")])
                == [.variant(.int32(9))])
        // Local misuse throws and changes nothing.
        #expect(throws: DBusError.self) { try lamp.setProperty("Name", of: Self.interface, to: .int32(1)) }
        #expect(throws: DBusError.self) { try lamp.setProperty("Nope", of: Self.interface, to: .int32(1)) }
        #expect(throws: DBusError.self) { try lamp.setProperty("Name", of: "com.example.None", to: .string("x")) }
        #expect(throws: DBusError.self) {
            try lamp.updateProperties(of: Self.interface, ["Name": .string("x"), "Brightness": .string("y")])
        }
        #expect(throws: DBusError.self) { try lamp.setProperty("Name", of: Self.interface, to: .string("nul\0")) }
        #expect(lamp.property("Name", of: Self.interface) == .string("last"))
        #expect(lamp.property("Nope", of: Self.interface) == nil)
    }

    @Test func signalsOfAnObjectGoOutOnlyWhileExported() async throws {
        let pair = try ServerPair()
        let lamp = try Self.lamp()
        let signals = try await pair.signals(Self.interface, "Blink")
        try lamp.emitSignal(interface: Self.interface, member: "Blink", arguments: [.int32(0)])
        try pair.server.export(lamp)
        try lamp.emitSignal(interface: Self.interface, member: "Blink", arguments: [.int32(1)])
        pair.server.unexport(lamp.path)
        try lamp.emitSignal(interface: Self.interface, member: "Blink", arguments: [.int32(2)])
        try pair.server.export(lamp)
        try lamp.emitSignal(interface: Self.interface, member: "Blink", arguments: [.int32(3)])
        await signals.waitForValues(2)
        try await pair.client.settle()
        #expect(signals.values.map(\.body) == [[.int32(1)], [.int32(3)]])
        #expect(throws: DBusError.self) { try lamp.emitSignal(interface: "bad", member: "Blink") }
    }

    @Test func aSignalByItsNameGoesOutOnlyWhileExportedAndABadValueThrows() async throws {
        let pair = try ServerPair()
        let lamp = try Self.lamp()
        let blink = try DBusSignalName(interface: Self.interface, member: "Blink")
        let signals = try await pair.signals(Self.interface, "Blink")
        try lamp.emitSignal(blink, arguments: [.int32(0)])
        try pair.server.export(lamp)
        try lamp.emitSignal(blink, arguments: [.int32(1)])
        #expect(throws: DBusError.self) { try lamp.emitSignal(blink, arguments: [.string("nul\0")]) }
        try lamp.emitSignal(blink, arguments: [.int32(2)])
        await signals.waitForValues(2)
        try await pair.client.settle()
        #expect(signals.values.map(\.body) == [[.int32(1)], [.int32(2)]])
        #expect(signals.values.allSatisfy { $0.path == lamp.path && $0.interface == Self.interface })
    }

    @Test func concurrentLocalChangesKeepTheirOrderWhileAClientReads() async throws {
        let pair = try ServerPair()
        let threads = 4
        let perThread: UInt32 = 200
        let object = try DBusExportedObject(
            path: .test("/busy"),
            interfaces: [
                DBusInterface(
                    name: "com.example.Busy",
                    properties: (0..<threads).map {
                        DBusProperty(name: "P\($0)", initialValue: .uint32(0))
                    })
            ])
        try pair.server.export(object)
        let changes = try await pair.signals(Self.properties, "PropertiesChanged")
        let reader = Task {
            var reads = 0
            for _ in 0..<100 {
                let body = try await pair.call("/busy", Self.properties, "GetAll", [.string("com.example.Busy")])
                if body.first?.stringVariantDictionary?.count == threads { reads += 1 }
            }
            return reads
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                DispatchQueue.concurrentPerform(iterations: threads) { thread in
                    for value in 1...perThread {
                        try? object.setProperty("P\(thread)", of: "com.example.Busy", to: .uint32(value))
                    }
                }
                continuation.resume()
            }
        }
        #expect(try await reader.value == 100)
        await changes.waitForValues(threads * Int(perThread))
        var seen: [String: [UInt32]] = [:]
        for message in changes.values {
            for (name, value) in message.body[1].stringVariantDictionary ?? [:] {
                seen[name, default: []].append(value.uint32 ?? 0)
            }
        }
        for thread in 0..<threads {
            #expect(seen["P\(thread)"] == Array(1...perThread))
            #expect(
                try await pair.call(
                    "/busy", Self.properties, "Get", [.string("com.example.Busy"), .string("P\(thread)")])
                    == [.variant(.uint32(perThread))])
        }
    }
}
