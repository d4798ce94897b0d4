import Ripple
import RippleDBus
import RippleLoop
import RippleTestSupport
import Testing

@testable import RippleBlueZSimulator

private let peripheralAdapter = SimulatedAdapter(name: "hci1", address: "00:1A:7D:DA:71:14")
private let observed = "/org/bluez/hci0/dev_00_1A_7D_DA_71_14"
private let characteristicPath = observed + "/service0001/char0002"
private let characteristicInterface = "org.bluez.GattCharacteristic1"
private let noOptions = DBusValue.stringVariantDictionary([:])

/// What the test application was asked, in order.
private final class ApplicationLog: Sendable {
    private let lock = Lock()
    private nonisolated(unsafe) var entries: [String] = []

    func append(_ entry: String) { lock.withLock { entries.append(entry) } }
    var all: [String] { lock.withLock { entries } }
}

/// The options a call carried, as `key=value,…` in key order.
private func describe(_ options: DBusValue?) -> String {
    let dictionary = options?.stringVariantDictionary ?? [:]
    return dictionary.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.unwrappingVariants)" }
        .joined(separator: ",")
}

/// A GATT application on `connection`, written against raw RippleDBus as a user's application would be:
/// one service 0xAAA0 with one characteristic 0xAAA1 (read, write, notify) and an advertisement.
private func exportApplication(on connection: DBusConnection, log: ApplicationLog) throws -> DBusExportedObject {
    let root = try DBusObjectPath("/org/test/app")
    let service = try DBusObjectPath("/org/test/app/service0")
    let options = DBusSignature(types: [.dictionary(key: .string, value: .variant)])
    let characteristic = try DBusExportedObject(
        path: service.appending("char0"),
        interfaces: [
            DBusInterface(
                name: characteristicInterface,
                methods: [
                    DBusMethod(
                        name: "ReadValue", inputSignature: options,
                        outputSignature: DBusSignature(types: [.array(.byte)])
                    ) { call throws(DBusError) in
                        log.append("read \(describe(call.arguments.first))")
                        return [.bytes([1, 2, 3])]
                    },
                    DBusMethod(
                        name: "WriteValue", inputSignature: DBusSignature(types: [.array(.byte), options.types[0]])
                    ) { call throws(DBusError) in
                        let bytes = call.arguments.first?.bytes ?? []
                        log.append("write \(bytes) noReply=\(call.message.noReplyExpected)")
                        if bytes == [0xFF] { throw .remote(name: "org.bluez.Error.Failed", message: "0x81") }
                        if bytes == [0xFE] { throw .remote(name: "org.bluez.Error.NotAuthorized", message: "no") }
                        return []
                    },
                    DBusMethod(name: "StartNotify") { _ throws(DBusError) in
                        log.append("start")
                        return []
                    },
                    DBusMethod(name: "StopNotify") { _ throws(DBusError) in
                        log.append("stop")
                        return []
                    },
                ],
                properties: [
                    DBusProperty(name: "UUID", initialValue: .string("0000aaa1-0000-1000-8000-00805f9b34fb")),
                    DBusProperty(name: "Service", initialValue: .objectPath(service)),
                    DBusProperty(
                        name: "Flags",
                        initialValue: .array(.string, [.string("read"), .string("write"), .string("notify")])),
                    DBusProperty(name: "Value", initialValue: .bytes([])),
                ])
        ])
    try connection.exportObjectManager(at: root)
    try connection.export(
        DBusExportedObject(
            path: service,
            interfaces: [
                DBusInterface(
                    name: "org.bluez.GattService1",
                    properties: [
                        DBusProperty(name: "UUID", initialValue: .string("0000aaa0-0000-1000-8000-00805f9b34fb")),
                        DBusProperty(name: "Primary", initialValue: .boolean(true)),
                    ])
            ]))
    try connection.export(characteristic)
    try connection.export(
        DBusExportedObject(
            path: DBusObjectPath("/org/test/advertisement"),
            interfaces: [
                DBusInterface(
                    name: "org.bluez.LEAdvertisement1",
                    methods: [DBusMethod(name: "Release") { _ throws(DBusError) in [] }],
                    properties: [
                        DBusProperty(name: "Type", initialValue: .string("peripheral")),
                        DBusProperty(name: "LocalName", initialValue: .string("Ripple Test")),
                        DBusProperty(name: "ServiceUUIDs", initialValue: .array(.string, [.string("aaa0")])),
                    ])
            ]))
    return characteristic
}

@Suite("The peripheral role: GattManager1 and LEAdvertisingManager1")
struct PeripheralRoleTests {
    /// Registers the test application and advertisement on hci1 from `application`.
    private func register(_ fixture: SimulatorFixture, from application: DBusConnection) async throws {
        _ = try await fixture.call(
            "/org/bluez/hci1", "org.bluez.GattManager1", "RegisterApplication",
            [.objectPath(try DBusObjectPath("/org/test/app")), noOptions], on: application)
        _ = try await fixture.call(
            "/org/bluez/hci1", "org.bluez.LEAdvertisingManager1", "RegisterAdvertisement",
            [.objectPath(try DBusObjectPath("/org/test/advertisement")), noOptions], on: application)
    }

    /// Discovers the advertising adapter from hci0 and connects to it.
    private func discoverAndConnect(_ fixture: SimulatorFixture) async throws {
        let added = try await fixture.signals("org.freedesktop.DBus.ObjectManager", "InterfacesAdded")
        _ = try await fixture.call("/org/bluez/hci0", "org.bluez.Adapter1", "StartDiscovery")
        await added.wait { $0.contains { $0.body.first?.objectPath?.description == observed } }
        _ = try await fixture.call("/org/bluez/hci0", "org.bluez.Adapter1", "StopDiscovery")
        try await fixture.connectAndResolve(observed)
    }

    @Test("an application registered on hci1 is a connectable peripheral to hci0, its operations forwarded")
    func applicationIsServedToAnotherAdapter() async throws {
        try await withFixture(
            SimulatorFixture(
                world: SimulatedWorld(adapters: [SimulatedAdapter(), peripheralAdapter]))
        ) { fixture in
            let application = try fixture.connectAnotherClient()
            let log = ApplicationLog()
            let characteristic = try exportApplication(on: application, log: log)
            try await register(fixture, from: application)
            #expect(
                try await fixture.property("/org/bluez/hci1", "org.bluez.LEAdvertisingManager1", "ActiveInstances")
                    == .byte(1))

            try await discoverAndConnect(fixture)
            #expect(try await fixture.property(observed, "org.bluez.Device1", "Name") == .string("Ripple Test"))
            #expect(
                try await fixture.property(characteristicPath, characteristicInterface, "UUID")
                    == .string("0000aaa1-0000-1000-8000-00805f9b34fb"))
            // The central appears below the peripheral's adapter, connected.
            #expect(
                try await fixture.property("/org/bluez/hci1/dev_00_1A_7D_DA_71_13", "org.bluez.Device1", "Connected")
                    == .boolean(true))

            #expect(
                try await fixture.call(characteristicPath, characteristicInterface, "ReadValue", [noOptions]) == [
                    .bytes([1, 2, 3])
                ])
            _ = try await fixture.call(
                characteristicPath, characteristicInterface, "WriteValue", [.bytes([5]), noOptions])
            let refused = try await fixture.error(
                characteristicPath, characteristicInterface, "WriteValue", [.bytes([0xFF]), noOptions])
            #expect(refused == BlueZError.attError(0x81))
            let unauthorized = try await fixture.error(
                characteristicPath, characteristicInterface, "WriteValue", [.bytes([0xFE]), noOptions])
            #expect(unauthorized == BlueZError.attError(0x08))

            let changes = try await fixture.signals("org.freedesktop.DBus.Properties", "PropertiesChanged")
            _ = try await fixture.call(characteristicPath, characteristicInterface, "StartNotify")
            try characteristic.setProperty("Value", of: characteristicInterface, to: .bytes([9]))
            await changes.wait { messages in
                messages.contains {
                    $0.path?.description == characteristicPath && $0.propertiesChange?.changed["Value"] == .bytes([9])
                }
            }
            _ = try await fixture.call(characteristicPath, characteristicInterface, "StopNotify")
            _ = try await fixture.call(characteristicPath, characteristicInterface, "ReadValue", [noOptions])
            #expect(
                log.all == [
                    "read device=objectpath '/org/bluez/hci1/dev_00_1A_7D_DA_71_13',link=\"LE\",mtu=uint16 247",
                    "write [5] noReply=false", "write [255] noReply=false", "write [254] noReply=false", "start",
                    "stop",
                    "read device=objectpath '/org/bluez/hci1/dev_00_1A_7D_DA_71_13',link=\"LE\",mtu=uint16 247",
                ])
            application.close()
        }
    }

    @Test("an application that leaves the bus takes its peripheral away; a second registration is refused")
    func registrationsBelongToTheirConnection() async throws {
        try await withFixture(
            SimulatorFixture(
                world: SimulatedWorld(adapters: [SimulatedAdapter(), peripheralAdapter]))
        ) { fixture in
            let application = try fixture.connectAnotherClient()
            _ = try exportApplication(on: application, log: ApplicationLog())
            try await register(fixture, from: application)
            let again = try await fixture.error(
                "/org/bluez/hci1", "org.bluez.GattManager1", "RegisterApplication",
                [.objectPath(try DBusObjectPath("/org/test/app")), noOptions], on: application)
            #expect(again == .alreadyExists)
            try await discoverAndConnect(fixture)

            let removed = try await fixture.signals("org.freedesktop.DBus.ObjectManager", "InterfacesRemoved")
            application.close()
            await removed.wait { $0.contains { $0.body.first?.objectPath?.description == observed } }
            #expect(
                try await fixture.property("/org/bluez/hci1", "org.bluez.LEAdvertisingManager1", "ActiveInstances")
                    == .byte(0))
        }
    }
}
