import Ripple
import RippleLoop
import Testing

@testable import RippleDBus

@Suite struct DBusExportedObjectManagerTests {
    static let manager = "org.freedesktop.DBus.ObjectManager"
    static let managedType = DBusType.dictionary(key: .string, value: .dictionary(key: .string, value: .variant))

    static func device(_ name: String, rssi: Int16) throws -> DBusExportedObject {
        try DBusExportedObject(
            path: .test("/org/bluez/hci0/\(name)"),
            interfaces: [
                DBusInterface(
                    name: "org.bluez.Device1",
                    properties: [
                        DBusProperty(name: "RSSI", initialValue: .int16(rssi)),
                        DBusProperty(name: "Hidden", access: .write, initialValue: .boolean(true)),
                    ])
            ])
    }

    static func interfaces(_ list: [(String, [String: DBusValue])]) -> DBusValue {
        .dictionary(
            key: .string, value: .dictionary(key: .string, value: .variant),
            list.map {
                DBusDictionaryEntry(key: .string($0.0), value: .stringVariantDictionary($0.1))
            })
    }

    @Test func getManagedObjectsListsEveryObjectBelowTheManager() async throws {
        let pair = try ServerPair()
        try pair.server.exportObjectManager(at: .root)
        #expect(throws: DBusError.self) { try pair.server.exportObjectManager(at: .root) }
        let adapter = try DBusExportedObject(
            path: .test("/org/bluez/hci0"),
            interfaces: [
                DBusInterface(
                    name: "org.bluez.Adapter1",
                    properties: [DBusProperty(name: "Powered", initialValue: .boolean(true))]),
                DBusInterface(name: "org.bluez.GattManager1"),
            ])
        try pair.server.export(adapter)
        try pair.server.export(Self.device("dev_B", rssi: -40))
        try pair.server.export(Self.device("dev_A", rssi: -60))
        let body = try await pair.call("/", Self.manager, "GetManagedObjects")
        #expect(
            body == [
                .dictionary(
                    key: .objectPath, value: Self.managedType,
                    [
                        DBusDictionaryEntry(
                            key: .objectPath(.test("/org/bluez/hci0")),
                            value: Self.interfaces([
                                ("org.bluez.Adapter1", ["Powered": .boolean(true)]), ("org.bluez.GattManager1", [:]),
                            ])),
                        DBusDictionaryEntry(
                            key: .objectPath(.test("/org/bluez/hci0/dev_A")),
                            value: Self.interfaces([
                                ("org.bluez.Device1", ["RSSI": .int16(-60)])
                            ])),
                        DBusDictionaryEntry(
                            key: .objectPath(.test("/org/bluez/hci0/dev_B")),
                            value: Self.interfaces([
                                ("org.bluez.Device1", ["RSSI": .int16(-40)])
                            ])),
                    ])
            ])
        // A manager lower down lists only what is below it, itself excluded.
        try pair.server.exportObjectManager(at: .test("/org/bluez/hci0"))
        let lower = try await pair.call("/org/bluez/hci0", Self.manager, "GetManagedObjects")
        #expect(
            lower.first?.dictionaryEntries?.map(\.key) == [
                .objectPath(.test("/org/bluez/hci0/dev_A")), .objectPath(.test("/org/bluez/hci0/dev_B")),
            ])
        #expect(try await pair.errorName("/", Self.manager, "Nope") == "org.freedesktop.DBus.Error.UnknownMethod")
        #expect(
            try await pair.errorName("/", "com.example.None", "Nope") == "org.freedesktop.DBus.Error.UnknownInterface")
        #expect(pair.server.unexportObjectManager(at: .root))
        #expect(
            try await pair.errorName("/", Self.manager, "GetManagedObjects")
                == "org.freedesktop.DBus.Error.UnknownObject")
    }

    @Test func interfacesAddedAndRemovedComeInOrderWithPropertiesChanged() async throws {
        let pair = try ServerPair()
        try pair.server.exportObjectManager(at: .root)
        let all = Recorder(pair.client.signals(matching: DBusMatchRule(sender: pair.server.uniqueName)))
        try await pair.client.settle()
        let device = try Self.device("dev_A", rssi: -60)
        try pair.server.export(device)
        try device.setProperty("RSSI", of: "org.bluez.Device1", to: .int16(-50))
        try device.addInterface(
            DBusInterface(
                name: "org.bluez.MediaControl1",
                properties: [
                    DBusProperty(name: "Connected", initialValue: .boolean(false))
                ]))
        try device.setProperty("Connected", of: "org.bluez.MediaControl1", to: .boolean(true))
        #expect(device.removeInterface(named: "org.bluez.MediaControl1"))
        #expect(!device.removeInterface(named: "org.bluez.MediaControl1"))
        pair.server.unexport(device.path)
        await all.waitForValues(6)
        try await pair.client.settle()
        let path = DBusValue.objectPath(device.path)
        #expect(
            all.values.map { "\($0.path?.rawValue ?? "") \($0.interface ?? "").\($0.member ?? "")" } == [
                "/ org.freedesktop.DBus.ObjectManager.InterfacesAdded",
                "/org/bluez/hci0/dev_A org.freedesktop.DBus.Properties.PropertiesChanged",
                "/ org.freedesktop.DBus.ObjectManager.InterfacesAdded",
                "/org/bluez/hci0/dev_A org.freedesktop.DBus.Properties.PropertiesChanged",
                "/ org.freedesktop.DBus.ObjectManager.InterfacesRemoved",
                "/ org.freedesktop.DBus.ObjectManager.InterfacesRemoved",
            ])
        #expect(
            all.values.map(\.body) == [
                [path, Self.interfaces([("org.bluez.Device1", ["RSSI": .int16(-60)])])],
                [.string("org.bluez.Device1"), .stringVariantDictionary(["RSSI": .int16(-50)]), .array(.string, [])],
                [path, Self.interfaces([("org.bluez.MediaControl1", ["Connected": .boolean(false)])])],
                [
                    .string("org.bluez.MediaControl1"), .stringVariantDictionary(["Connected": .boolean(true)]),
                    .array(.string, []),
                ],
                [path, .array(.string, [.string("org.bluez.MediaControl1")])],
                [path, .array(.string, [.string("org.bluez.Device1")])],
            ])
        #expect(
            all.values.allSatisfy {
                $0.signature.rawValue
                    == ($0.member == "PropertiesChanged"
                        ? "sa{sv}as" : $0.member == "InterfacesAdded" ? "oa{sa{sv}}" : "oas")
            })
    }

    @Test func introspectionDescribesObjectsAndTheNodesAboveThem() async throws {
        let pair = try ServerPair()
        try pair.server.exportObjectManager(at: .root)
        let object = try DBusExportedObject(
            path: .test("/org/example/thing"),
            interfaces: [
                DBusInterface(
                    name: "org.example.Thing",
                    methods: [
                        DBusMethod(
                            name: "Frob", inputSignature: .test("sa{sv}"), outputSignature: .test("o"),
                            inputNames: ["name", "options"], outputNames: ["result"]
                        ) { _ in [.objectPath(.root)] }
                    ],
                    properties: [
                        DBusProperty(name: "Level", access: .readWrite, initialValue: .uint32(0)),
                        DBusProperty(name: "Cache", initialValue: .string(""), changeEmission: .invalidates),
                    ],
                    signals: [
                        DBusSignalDeclaration(name: "Frobbed", signature: .test("u"), argumentNames: ["count<&>"])
                    ])
            ])
        try pair.server.export(object)
        try pair.server.export(DBusExportedObject(path: .test("/org/example/thing/child")))
        let introspectable = "org.freedesktop.DBus.Introspectable"

        let xml = try #require(try await pair.call("/org/example/thing", introspectable, "Introspect").first?.string)
        let names = try #require(wellFormedElementNames(xml))
        #expect(names.first == "node")
        for fragment in [
            "<interface name=\"org.freedesktop.DBus.Properties\">",
            "<interface name=\"org.freedesktop.DBus.Introspectable\">",
            "<interface name=\"org.freedesktop.DBus.Peer\">",
            "<interface name=\"org.example.Thing\">",
            "<method name=\"Frob\">",
            "<arg name=\"name\" type=\"s\" direction=\"in\"/>",
            "<arg name=\"options\" type=\"a{sv}\" direction=\"in\"/>",
            "<arg name=\"result\" type=\"o\" direction=\"out\"/>",
            "<signal name=\"Frobbed\">",
            "<arg name=\"count&lt;&amp;&gt;\" type=\"u\"/>",
            "<property name=\"Level\" type=\"u\" access=\"readwrite\"/>",
            "<property name=\"Cache\" type=\"s\" access=\"read\">",
            "<annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"invalidates\"/>",
            "<node name=\"child\"/>",
        ] {
            #expect(xml.contains(fragment), "missing \(fragment)")
        }
        #expect(!xml.contains("org.freedesktop.DBus.ObjectManager"))

        // The root: the manager, and the way down.
        let root = try #require(try await pair.call("/", introspectable, "Introspect").first?.string)
        #expect(wellFormedElementNames(root) != nil)
        #expect(root.contains("<interface name=\"org.freedesktop.DBus.ObjectManager\">"))
        #expect(root.contains("<node name=\"org\"/>"))
        #expect(!root.contains("org.freedesktop.DBus.Properties"))
        // An intermediate node.
        let middle = try #require(try await pair.call("/org/example", nil, "Introspect").first?.string)
        #expect(wellFormedElementNames(middle) != nil)
        #expect(middle.contains("<node name=\"thing\"/>"))
        #expect(!middle.contains("org.example.Thing"))
        #expect(
            try await pair.errorName("/nowhere", introspectable, "Introspect")
                == "org.freedesktop.DBus.Error.UnknownObject")
        #expect(try await pair.errorName("/org", introspectable, "Nope") == "org.freedesktop.DBus.Error.UnknownMethod")
        // Peer is answered everywhere (as libdbus's dispatch does): Ping, GetMachineId, nothing else.
        #expect(try await pair.call("/org/example/thing", "org.freedesktop.DBus.Peer", "Ping") == [])
        #expect(try await pair.call("/nowhere", "org.freedesktop.DBus.Peer", "Ping") == [])
        let machine = try await pair.call("/", "org.freedesktop.DBus.Peer", "GetMachineId")
        #expect(machine.count == 1 && machine.first?.string?.count == 32)
        #expect(
            try await pair.errorName("/", "org.freedesktop.DBus.Peer", "Pong")
                == "org.freedesktop.DBus.Error.UnknownMethod")
    }
}

@Suite struct DBusRequestNameTests {
    @Test func requestAndReleaseNameAnswerAsTheBusDoes() async throws {
        let bus = try BusFixture()
        let first = try bus.connect()
        let second = try bus.connect()
        #expect(try await first.requestName("com.example.Named").firstValue == .primaryOwner)
        #expect(try await first.requestName("com.example.Named").firstValue == .alreadyOwner)
        #expect(try await second.requestName("com.example.Named", flags: .doNotQueue).firstValue == .exists)
        #expect(try await second.requestName("com.example.Named").firstValue == .inQueue)
        #expect(try await first.releaseName("com.example.Named").firstValue == .released)
        // The queued connection owns it now.
        let owner = try await first.callBus("GetNameOwner", [.string("com.example.Named")])
        #expect(owner.body == [.string(second.uniqueName)])
        #expect(try await first.releaseName("com.example.Named").firstValue == .notOwner)
        #expect(try await first.releaseName("com.example.Nobody").firstValue == .nonExistent)
        await #expect(throws: DBusError.self) { _ = try await first.requestName("not a name").firstValue }
        await #expect(throws: DBusError.self) { _ = try await first.requestName(":1.5").firstValue }
    }

    @Test func aServiceCalledByItsWellKnownName() async throws {
        let bus = try BusFixture()
        let server = try bus.connect()
        let client = try bus.connect()
        #expect(
            try await server.requestName("com.example.Service", flags: [.doNotQueue, .allowReplacement]).firstValue
                == .primaryOwner)
        try server.export(
            DBusExportedObject(
                path: .test("/svc"),
                interfaces: [
                    DBusInterface(
                        name: "com.example.Service",
                        methods: [
                            DBusMethod(name: "Hello", outputSignature: .test("s")) { call in
                                [.string("hello \(call.sender ?? "")")]
                            }
                        ])
                ]))
        let reply = try await client.call(
            destination: "com.example.Service", path: .test("/svc"), interface: "com.example.Service", member: "Hello"
        ).firstValue
        #expect(reply.body == [.string("hello \(client.uniqueName)")])
    }
}
