import Ripple
import RippleLoop
import Synchronization
import Testing

@testable import RippleDBus

@Suite struct DBusObjectManagerClientTests {
    static let name = "com.example.Tree"
    static let root = DBusObjectPath.test("/tree")
    static let hci0 = DBusObjectPath.test("/tree/hci0")
    static let device = DBusObjectPath.test("/tree/hci0/dev_1")
    static let newDevice = DBusObjectPath.test("/tree/hci0/dev_2")
    static let adapter = "com.example.Adapter"
    static let deviceInterface = "com.example.Device"

    static let initial: DBusManagedObjects = [
        hci0: [adapter: ["Powered": .boolean(true), "Alias": .string("hci0")]],
        device: [
            deviceInterface: ["RSSI": .int16(-60), "Name": .string("Tag")], "com.example.Battery": ["Level": .byte(80)],
        ],
    ]

    private func setUp(objects: DBusManagedObjects = initial) async throws -> (
        BusFixture, DBusConnection, FakeObjectService
    ) {
        let bus = try BusFixture()
        let client = try bus.connect()
        let service = try await FakeObjectService.start(
            on: bus.connect(), name: Self.name, managerPath: Self.root, objects: objects)
        return (bus, client, service)
    }

    @Test func theSnapshotThenEachChangeInOrder() async throws {
        let (bus, client, service) = try await setUp()
        let events = Recorder(client.managedObjects(destination: Self.name, path: Self.root))
        await events.waitForValues(1)
        #expect(events.values == [.snapshot(Self.initial)])
        service.mutate { service, core in
            service.add(Self.newDevice, [Self.deviceInterface: ["RSSI": .int16(-70)]], core: core)
            service.change(
                Self.device, Self.deviceInterface, changed: ["RSSI": .int16(-55)], invalidated: ["Name"], core: core)
            // Not about the tree: an unknown object, an interface the object lacks. Dropped.
            service.change(
                .test("/tree/ghost"), Self.deviceInterface, changed: ["RSSI": .int16(0)], invalidated: [], core: core)
            service.change(Self.hci0, Self.deviceInterface, changed: ["RSSI": .int16(0)], invalidated: [], core: core)
            service.remove(Self.device, ["com.example.Battery", "com.example.Missing"], core: core)
            service.remove(Self.newDevice, [Self.deviceInterface], core: core)
            service.add(Self.hci0, ["com.example.Media": [:]], core: core)
        }
        await events.waitForValues(6)
        #expect(
            events.values == [
                .snapshot(Self.initial),
                .interfacesAdded(Self.newDevice, [Self.deviceInterface: ["RSSI": .int16(-70)]]),
                .propertiesChanged(
                    Self.device,
                    DBusPropertiesChange(
                        interface: Self.deviceInterface, changed: ["RSSI": .int16(-55)], invalidated: ["Name"])),
                .interfacesRemoved(Self.device, ["com.example.Battery"]),
                .interfacesRemoved(Self.newDevice, [Self.deviceInterface]),
                .interfacesAdded(Self.hci0, ["com.example.Media": [:]]),
            ])
        var state = DBusObjectManagerState()
        events.values.forEach { state.apply($0) }
        #expect(state.objects == service.objects)
        #expect(
            state.objects == [
                Self.hci0: [
                    Self.adapter: ["Powered": .boolean(true), "Alias": .string("hci0")], "com.example.Media": [:],
                ],
                Self.device: [Self.deviceInterface: ["RSSI": .int16(-55)]],
            ])
        #expect(events.completion == nil)
        withExtendedLifetime(bus) {}
    }

    @Test func changesMadeJustBeforeTheAnswerAreInTheSnapshotOnlyAndThoseAfterAreEmitted() async throws {
        let (bus, client, service) = try await setUp()
        service.whenAnsweringSnapshot(before: true) { service, core in
            service.add(Self.newDevice, [Self.deviceInterface: ["RSSI": .int16(-70)]], core: core)
            service.change(Self.hci0, Self.adapter, changed: ["Powered": .boolean(false)], invalidated: [], core: core)
        }
        service.whenAnsweringSnapshot(before: false) { service, core in
            service.change(Self.hci0, Self.adapter, changed: ["Alias": .string("after")], invalidated: [], core: core)
        }
        let events = Recorder(client.managedObjects(destination: Self.name, path: Self.root))
        await events.waitForValues(2)
        var expectedSnapshot = Self.initial
        expectedSnapshot[Self.newDevice] = [Self.deviceInterface: ["RSSI": .int16(-70)]]
        expectedSnapshot[Self.hci0]?[Self.adapter]?["Powered"] = .boolean(false)
        #expect(
            events.values == [
                .snapshot(expectedSnapshot),
                .propertiesChanged(
                    Self.hci0, DBusPropertiesChange(interface: Self.adapter, changed: ["Alias": .string("after")])),
            ])
        withExtendedLifetime(bus) {}
    }

    @Test func aServiceThatLeavesEmptiesTheTreeAndOneThatComesBackFillsIt() async throws {
        let bus = try BusFixture()
        let client = try bus.connect()
        let first = try await FakeObjectService.start(
            on: bus.connect(), name: Self.name, managerPath: Self.root, objects: Self.initial)
        let events = Recorder(client.managedObjects(destination: Self.name, path: Self.root))
        await events.waitForValues(1)
        first.connection.close()
        await events.waitForValues(3)
        #expect(
            Array(events.values.dropFirst()) == [
                .interfacesRemoved(Self.device, ["com.example.Battery", Self.deviceInterface]),
                .interfacesRemoved(Self.hci0, [Self.adapter]),
            ])
        let restarted: DBusManagedObjects = [
            Self.hci0: [Self.adapter: ["Powered": .boolean(false)]],
            Self.newDevice: [Self.deviceInterface: ["RSSI": .int16(-40)]],
        ]
        let second = try await FakeObjectService.start(
            on: bus.connect(), name: Self.name, managerPath: Self.root, objects: restarted)
        await events.waitForValues(5)
        second.mutate { service, core in
            service.change(Self.hci0, Self.adapter, changed: ["Powered": .boolean(true)], invalidated: [], core: core)
        }
        await events.waitForValues(6)
        #expect(
            Array(events.values.dropFirst(3)) == [
                .interfacesAdded(Self.hci0, [Self.adapter: ["Powered": .boolean(false)]]),
                .interfacesAdded(Self.newDevice, [Self.deviceInterface: ["RSSI": .int16(-40)]]),
                .propertiesChanged(
                    Self.hci0, DBusPropertiesChange(interface: Self.adapter, changed: ["Powered": .boolean(true)])),
            ])
        var state = DBusObjectManagerState()
        events.values.forEach { state.apply($0) }
        #expect(state.objects == second.objects)
        #expect(events.completion == nil)
    }

    @Test func aNameWithoutOwnerGivesAnEmptySnapshotThenTheServiceTreeWhenItComes() async throws {
        let bus = try BusFixture()
        let client = try bus.connect()
        let events = Recorder(client.managedObjects(destination: Self.name, path: Self.root))
        await events.waitForValues(1)
        #expect(events.values == [.snapshot([:])])
        _ = try await FakeObjectService.start(
            on: bus.connect(), name: Self.name, managerPath: Self.root, objects: Self.initial)
        await events.waitForValues(3)
        #expect(
            Array(events.values.dropFirst()) == [
                .interfacesAdded(Self.hci0, Self.initial[Self.hci0] ?? [:]),
                .interfacesAdded(Self.device, Self.initial[Self.device] ?? [:]),
            ])
    }

    @Test func noObjectManagerAtThePathFailsWithTheServiceError() async throws {
        let (bus, client, _) = try await setUp()
        let events = Recorder(client.managedObjects(destination: Self.name, path: .test("/elsewhere")))
        await events.waitForCompletion()
        #expect(events.values.isEmpty)
        #expect(
            events.completion.flatMap { completion -> String? in
                if case .failure(let error) = completion { return error.remoteName }
                return nil
            } == "org.freedesktop.DBus.Error.UnknownObject")
        withExtendedLifetime(bus) {}
    }

    @Test func anInvalidDestinationFailsWithInvalidArgument() async throws {
        let bus = try BusFixture()
        let client = try bus.connect()
        let events = Recorder(client.managedObjects(destination: "not a name"))
        await events.waitForCompletion()
        guard case .failure(.invalidArgument)? = events.completion else {
            Issue.record("expected invalidArgument, got \(String(describing: events.completion))")
            return
        }
    }

    @Test func aMalformedSnapshotFailsWithTheExactSignatures() async throws {
        let (bus, client, service) = try await setUp()
        service.cannedReply(to: "GetManagedObjects", body: [.string("oops")])
        let events = Recorder(client.managedObjects(destination: Self.name, path: Self.root))
        await events.waitForCompletion()
        #expect(events.values.isEmpty)
        #expect(events.completion == .failure(.decoding(.typeMismatch(expected: "a{oa{sa{sv}}}", found: "s", at: ""))))
        withExtendedLifetime(bus) {}
    }

    @Test(arguments: [
        ("InterfacesAdded", [DBusValue.objectPath(.test("/tree/x")), .string("bad")], "oa{sa{sv}}", "os"),
        ("InterfacesRemoved", [DBusValue.objectPath(.test("/tree/x"))], "oas", "o"),
        ("PropertiesChanged", [DBusValue.string("com.example.Adapter"), .int32(1)], "sa{sv}as", "si"),
    ])
    func aMalformedChangeFromTheServiceFailsTheStream(
        member: String, body: [DBusValue], expected: String, found: String
    )
        async throws
    {
        let (bus, client, service) = try await setUp()
        let events = Recorder(client.managedObjects(destination: Self.name, path: Self.root))
        await events.waitForValues(1)
        let isProperties = member == "PropertiesChanged"
        try service.connection.emitSignal(
            path: isProperties ? Self.hci0 : Self.root,
            interface: isProperties ? FakeObjectService.properties : FakeObjectService.objectManager,
            member: member, arguments: body)
        await events.waitForCompletion()
        #expect(events.values == [.snapshot(Self.initial)])
        #expect(events.completion == .failure(.decoding(.typeMismatch(expected: expected, found: found, at: ""))))
        withExtendedLifetime(bus) {}
    }

    @Test func cancellingRemovesTheMatchRules() async throws {
        let (bus, client, _) = try await setUp()
        let events = Recorder(client.managedObjects(destination: Self.name, path: Self.root))
        await events.waitForValues(1)
        let managerRule = DBusMatchRule(sender: Self.name, interface: FakeObjectService.objectManager, path: Self.root)
        let propertiesRule = DBusMatchRule(
            sender: Self.name, interface: FakeObjectService.properties, member: "PropertiesChanged",
            pathNamespace: Self.root)
        #expect(await onLoop(client) { $0.core.signalRouter.users(of: managerRule.description) } == 1)
        #expect(await onLoop(client) { $0.core.signalRouter.users(of: propertiesRule.description) } == 1)
        events.cancel()
        try await client.settle()
        #expect(await onLoop(client) { $0.core.signalRouter.users(of: managerRule.description) } == 0)
        #expect(await onLoop(client) { $0.core.signalRouter.users(of: propertiesRule.description) } == 0)
        withExtendedLifetime(bus) {}
    }

    @Test func closingTheConnectionFailsWithDisconnected() async throws {
        let (bus, client, _) = try await setUp()
        let events = Recorder(client.managedObjects(destination: Self.name, path: Self.root))
        await events.waitForValues(1)
        client.close()
        await events.waitForCompletion()
        #expect(events.values == [.snapshot(Self.initial)])
        #expect(events.completion == .failure(.disconnected))
        withExtendedLifetime(bus) {}
    }

    @Test func theStatePublisherEmitsTheTreeAfterEachEvent() async throws {
        let (bus, client, service) = try await setUp()
        let states = Recorder(client.managedObjectsState(destination: Self.name, path: Self.root))
        await states.waitForValues(1)
        service.mutate { service, core in
            service.remove(Self.device, ["com.example.Battery", Self.deviceInterface], core: core)
        }
        await states.waitForValues(2)
        #expect(states.values.map(\.objects) == [Self.initial, [Self.hci0: Self.initial[Self.hci0] ?? [:]]])
        withExtendedLifetime(bus) {}
    }

    @Test func stateAppliesEventsAsDocumented() {
        var state = DBusObjectManagerState()
        state.apply(.snapshot(Self.initial))
        #expect(state.objects(implementing: Self.deviceInterface) == [Self.device])
        #expect(
            state.properties(of: Self.hci0, interface: Self.adapter) == [
                "Powered": .boolean(true), "Alias": .string("hci0"),
            ])
        state.apply(.interfacesAdded(Self.hci0, [Self.adapter: ["Powered": .boolean(false)]]))
        #expect(state[Self.hci0] == [Self.adapter: ["Powered": .boolean(false)]])
        state.apply(
            .propertiesChanged(
                Self.device,
                DBusPropertiesChange(
                    interface: Self.deviceInterface, changed: ["RSSI": .int16(-1)], invalidated: ["Name"])))
        #expect(state.properties(of: Self.device, interface: Self.deviceInterface) == ["RSSI": .int16(-1)])
        let before = state
        state.apply(
            .propertiesChanged(.test("/tree/ghost"), DBusPropertiesChange(interface: "x", changed: ["A": .int32(1)])))
        state.apply(.interfacesRemoved(.test("/tree/ghost"), ["x"]))
        #expect(state == before)
        state.apply(.interfacesRemoved(Self.device, ["com.example.Battery"]))
        #expect(state[Self.device] == [Self.deviceInterface: ["RSSI": .int16(-1)]])
        state = state.applying(.interfacesRemoved(Self.device, [Self.deviceInterface]))
        #expect(state[Self.device] == nil)
        #expect(state.objects(implementing: Self.deviceInterface) == [])
    }
}
