import Ripple
import RippleLoop
import Testing

@testable import RippleDBus

@Suite struct DBusPropertiesTests {
    static let name = "com.example.Props"
    static let sensor = DBusObjectPath.test("/props/sensor")
    static let interface = "com.example.Sensor"

    /// A bus, a client, and a service with one object holding three properties.
    private func setUp() async throws -> (BusFixture, DBusConnection, FakeObjectService) {
        let bus = try BusFixture()
        let client = try bus.connect()
        let service = try await FakeObjectService.start(
            on: bus.connect(), name: Self.name, managerPath: .test("/props"),
            objects: [
                Self.sensor: [
                    Self.interface: ["Count": .uint32(7), "Label": .string("kitchen"), "Levels": .bytes([1, 2, 3])],
                    "com.example.Other": ["Enabled": .boolean(true)],
                ]
            ])
        return (bus, client, service)
    }

    @Test func getEmitsTheUnwrappedValueThenFinishes() async throws {
        let (bus, client, _) = try await setUp()
        let recorder = Recorder(
            client.getProperty(destination: Self.name, path: Self.sensor, interface: Self.interface, name: "Count"))
        await recorder.waitForCompletion()
        #expect(recorder.values == [.uint32(7)])
        #expect(recorder.completion == .finished)
        let levels = try await client.getProperty(
            destination: Self.name, path: Self.sensor, interface: Self.interface, name: "Levels"
        ).firstValue
        #expect(levels == .bytes([1, 2, 3]))
        withExtendedLifetime(bus) {}
    }

    @Test func typedGetDecodesOrFailsWithTheExactSignatures() async throws {
        let (bus, client, _) = try await setUp()
        let count = try await client.getProperty(
            destination: Self.name, path: Self.sensor, interface: Self.interface, name: "Count", as: UInt32.self
        ).firstValue
        #expect(count == 7)
        let levels = try await client.getProperty(
            destination: Self.name, path: Self.sensor, interface: Self.interface, name: "Levels", as: [UInt8].self
        ).firstValue
        #expect(levels == [1, 2, 3])
        let wrong = Recorder(
            client.getProperty(
                destination: Self.name, path: Self.sensor, interface: Self.interface, name: "Count", as: String.self))
        await wrong.waitForCompletion()
        #expect(wrong.values.isEmpty)
        #expect(
            wrong.completion == .failure(.decoding(.typeMismatch(expected: "s", found: "u", at: "property \"Count\""))))
        withExtendedLifetime(bus) {}
    }

    @Test func getAllEmitsEveryPropertyOfTheInterface() async throws {
        let (bus, client, _) = try await setUp()
        let recorder = Recorder(
            client.getAllProperties(destination: Self.name, path: Self.sensor, interface: Self.interface))
        await recorder.waitForCompletion()
        #expect(recorder.values == [["Count": .uint32(7), "Label": .string("kitchen"), "Levels": .bytes([1, 2, 3])]])
        #expect(recorder.completion == .finished)
        withExtendedLifetime(bus) {}
    }

    @Test func setChangesTheValueAndTheServiceAnnouncesIt() async throws {
        let (bus, client, service) = try await setUp()
        let changes = Recorder(
            client.propertiesChanged(sender: Self.name, path: Self.sensor, interface: Self.interface))
        try await client.settle()
        let set = Recorder(
            client.setProperty(
                destination: Self.name, path: Self.sensor, interface: Self.interface, name: "Label",
                value: .string("hall")))
        await set.waitForCompletion()
        #expect(set.values.count == 1)
        #expect(set.completion == .finished)
        #expect(service.objects[Self.sensor]?[Self.interface]?["Label"] == .string("hall"))
        let label = try await client.getProperty(
            destination: Self.name, path: Self.sensor, interface: Self.interface, name: "Label", as: String.self
        ).firstValue
        #expect(label == "hall")
        await changes.waitForValues(1)
        #expect(
            changes.values == [DBusPropertiesChange(interface: Self.interface, changed: ["Label": .string("hall")])])
        withExtendedLifetime(bus) {}
    }

    @Test func remoteErrorsPassThrough() async throws {
        let (bus, client, _) = try await setUp()
        let unknownProperty = Recorder(
            client.getProperty(destination: Self.name, path: Self.sensor, interface: Self.interface, name: "Nope"))
        await unknownProperty.waitForCompletion()
        #expect(
            unknownProperty.completion
                == .failure(
                    .remote(
                        name: "org.freedesktop.DBus.Error.UnknownProperty", message: "no property Nope")))
        let unknownInterface = Recorder(
            client.getAllProperties(destination: Self.name, path: Self.sensor, interface: "com.example.Missing"))
        await unknownInterface.waitForCompletion()
        #expect(
            unknownInterface.completion
                == .failure(
                    .remote(
                        name: "org.freedesktop.DBus.Error.UnknownInterface", message: "no interface com.example.Missing"
                    )))
        let setUnknown = Recorder(
            client.setProperty(
                destination: Self.name, path: Self.sensor, interface: Self.interface, name: "Nope", value: .int32(1)))
        await setUnknown.waitForCompletion()
        #expect(setUnknown.values.isEmpty)
        #expect(
            setUnknown.completion
                == .failure(
                    .remote(
                        name: "org.freedesktop.DBus.Error.UnknownProperty", message: "no property Nope")))
        let noService = Recorder(
            client.getProperty(
                destination: "com.example.Nobody", path: Self.sensor, interface: Self.interface, name: "X"))
        await noService.waitForCompletion()
        #expect(
            noService.completion.flatMap { completion -> String? in
                if case .failure(let error) = completion { return error.remoteName }
                return nil
            } == "org.freedesktop.DBus.Error.ServiceUnknown")
        withExtendedLifetime(bus) {}
    }

    @Test func malformedRepliesFailWithDecodingErrors() async throws {
        let (bus, client, service) = try await setUp()
        service.cannedReply(to: "Get", body: [.string("not a variant")])
        service.cannedReply(to: "GetAll", body: [.int32(1), .int32(2)])
        let get = Recorder(
            client.getProperty(destination: Self.name, path: Self.sensor, interface: Self.interface, name: "Count"))
        await get.waitForCompletion()
        #expect(get.completion == .failure(.decoding(.typeMismatch(expected: "v", found: "s", at: ""))))
        let typed = Recorder(
            client.getProperty(
                destination: Self.name, path: Self.sensor, interface: Self.interface, name: "Count", as: UInt32.self))
        await typed.waitForCompletion()
        #expect(typed.completion == .failure(.decoding(.typeMismatch(expected: "v", found: "s", at: ""))))
        let getAll = Recorder(
            client.getAllProperties(destination: Self.name, path: Self.sensor, interface: Self.interface))
        await getAll.waitForCompletion()
        #expect(getAll.values.isEmpty)
        #expect(getAll.completion == .failure(.decoding(.typeMismatch(expected: "a{sv}", found: "ii", at: ""))))
        // A reply with a dictionary of the wrong value type.
        service.cannedReply(to: "GetAll", body: [["Count": UInt32(7)].dbusValue])
        let wrongDictionary = Recorder(
            client.getAllProperties(destination: Self.name, path: Self.sensor, interface: Self.interface))
        await wrongDictionary.waitForCompletion()
        #expect(
            wrongDictionary.completion == .failure(.decoding(.typeMismatch(expected: "a{sv}", found: "a{su}", at: ""))))
        withExtendedLifetime(bus) {}
    }

    @Test func propertiesChangedCarriesExactChangesOfTheChosenInterface() async throws {
        let (bus, client, service) = try await setUp()
        let ofSensor = Recorder(
            client.propertiesChanged(sender: Self.name, path: Self.sensor, interface: Self.interface))
        let ofAny = Recorder(client.propertiesChanged(path: Self.sensor))
        try await client.settle()
        let sensor = Self.sensor
        let interface = Self.interface
        service.mutate { service, core in
            service.change(sensor, interface, changed: ["Count": .uint32(8)], invalidated: ["Label"], core: core)
            service.change(
                sensor, "com.example.Other", changed: ["Enabled": .boolean(false)], invalidated: [], core: core)
            service.change(
                sensor, interface, changed: ["Count": .uint32(9), "Levels": .bytes([])], invalidated: [], core: core)
        }
        await ofSensor.waitForValues(2)
        await ofAny.waitForValues(3)
        #expect(
            ofSensor.values == [
                DBusPropertiesChange(interface: interface, changed: ["Count": .uint32(8)], invalidated: ["Label"]),
                DBusPropertiesChange(interface: interface, changed: ["Count": .uint32(9), "Levels": .bytes([])]),
            ])
        #expect(
            ofAny.values == [
                DBusPropertiesChange(interface: interface, changed: ["Count": .uint32(8)], invalidated: ["Label"]),
                DBusPropertiesChange(interface: "com.example.Other", changed: ["Enabled": .boolean(false)]),
                DBusPropertiesChange(interface: interface, changed: ["Count": .uint32(9), "Levels": .bytes([])]),
            ])
        #expect(ofSensor.completion == nil)
        withExtendedLifetime(bus) {}
    }

    @Test func aMalformedPropertiesChangedIsSkippedAndTheStreamCarriesOn() async throws {
        let (bus, client, service) = try await setUp()
        let changes = Recorder(client.propertiesChanged(path: Self.sensor))
        try await client.settle()
        // Wrong second argument (a{su} instead of a{sv}), then too few arguments, then a good one.
        try service.connection.emitSignal(
            path: Self.sensor, interface: FakeObjectService.properties, member: "PropertiesChanged",
            arguments: [.string(Self.interface), ["Count": UInt32(1)].dbusValue, [String]().dbusValue])
        try service.connection.emitSignal(
            path: Self.sensor, interface: FakeObjectService.properties, member: "PropertiesChanged",
            arguments: [.string(Self.interface)])
        try service.connection.emitSignal(
            path: Self.sensor, interface: FakeObjectService.properties, member: "PropertiesChanged",
            arguments: [.string(Self.interface), .stringVariantDictionary(["Count": .uint32(2)]), [String]().dbusValue])
        await changes.waitForValues(1)
        #expect(changes.values == [DBusPropertiesChange(interface: Self.interface, changed: ["Count": .uint32(2)])])
        #expect(changes.completion == nil)
        withExtendedLifetime(bus) {}
    }

    @Test func decodingAPropertiesChangedSignalReportsTheWholeSignature() throws {
        let signal = try DBusMessage.signal(
            path: Self.sensor, interface: FakeObjectService.properties, member: "PropertiesChanged",
            body: [.string("x"), .int32(1)])
        #expect(throws: DBusDecodingError.typeMismatch(expected: "sa{sv}as", found: "si", at: "")) {
            _ = try DBusPropertiesChange(decoding: signal)
        }
    }
}
