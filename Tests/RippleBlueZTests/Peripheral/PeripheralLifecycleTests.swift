import Glibc
import Ripple
import RippleBlueZSimulator
import RippleDBus
import RippleLoop
import RippleTestKit
import RippleTestSupport
import Synchronization
import Testing

@testable import RippleBlueZ

private let service = BluetoothUUID(uuidString: "52495050-0000-4000-8000-000000000000") ?? BluetoothUUID(0)
private let level = BluetoothUUID(uuidString: "52495050-0000-4000-8000-000000000001") ?? BluetoothUUID(0)
private let setting = BluetoothUUID(uuidString: "52495050-0000-4000-8000-000000000002") ?? BluetoothUUID(0)

private func services() -> [LocalService] {
    [
        LocalService(service) {
            LocalCharacteristic(level, properties: [.read, .notify], value: [42])
            LocalCharacteristic(setting, properties: [.write])
        }
    ]
}

/// The reply body of a call to bluetoothd (the simulator) from `connection`.
private func bluez(
    _ connection: DBusConnection, _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = []
) async throws -> [DBusValue] {
    for try await reply in connection.call(
        destination: "org.bluez", path: try DBusObjectPath(path), interface: interface, member: member,
        arguments: arguments
    ).values {
        return reply.body
    }
    throw DBusError.disconnected
}

private func activeAdvertisements(_ fixture: PeripheralFixture) async throws -> DBusValue? {
    try await bluez(
        fixture.manager.connection, "/org/bluez/hci1", "org.freedesktop.DBus.Properties", "Get",
        [.string("org.bluez.LEAdvertisingManager1"), .string("ActiveInstances")]
    ).first?.unwrappingVariants
}

@Suite(.timeLimit(Patience.test)) struct PeripheralLifecycleTests {
    @Test func advertisingStartsWhenSubscribedAndStopsWhenCancelled() async throws {
        try await withFixture(PeripheralFixture(services: services())) { fixture in
            let advertising = TestSubscriber(
                fixture.manager.advertise(Advertisement(localName: "Level", serviceUUIDs: [service])))
            try await advertising.wait(timeout: Patience.step) {
                $0.values.last == .advertising || $0.completion != nil
            }
            #expect(advertising.completion == nil)
            #expect(try await activeAdvertisements(fixture) == .byte(1))
            let seen = try await fixture.central.startDiscovery().first {
                $0.address == PeripheralFixture.peripheralAddress
            }
            .values.first { _ in true }
            #expect(seen?.name == "Level")
            #expect(seen?.serviceUUIDs == [service])
            advertising.cancel()
            // The unregistration goes out before any later call on the manager's connection.
            #expect(try await activeAdvertisements(fixture) == .byte(0))
        }
    }

    @Test func aFieldBluetoothdDoesNotSupportFailsTheStartNamingIt() async throws {
        try await withFixture(PeripheralFixture(services: services())) { fixture throws in
            let advertising = TestSubscriber(fixture.manager.advertise(Advertisement(localName: "Loud", txPower: 4)))
            try await advertising.wait(timeout: Patience.step) { $0.completion != nil }
            let error = advertising.failure()
            #expect(error?.kind == .notSupported)
            #expect(error?.message.contains("txPower") == true)
            #expect(try await activeAdvertisements(fixture) == .byte(0))
            // 3 bytes of flags, 18 of a 128-bit UUID, 14 of name and 4 of appearance do not fit in 31.
            let tooLong = TestSubscriber(
                fixture.manager.advertise(
                    Advertisement(localName: "Ripple Level", serviceUUIDs: [service], appearance: 0x0340)))
            try await tooLong.wait(timeout: Patience.step) { $0.completion != nil }
            // The user's argument: a typed error with the data's length, bluetoothd's answer kept.
            let refused = tooLong.failure()
            #expect(refused?.kind == .invalidArgument)
            #expect(refused?.message.contains("39 bytes") == true)
            #expect(refused?.bluezMessage == "Failed to parse advertisement.")
        }
    }

    @Test func aReleaseOfTheAdvertisementFromAnotherConnectionIsRefused() async throws {
        try await withFixture(PeripheralFixture(services: services())) { fixture in
            let advertising = TestSubscriber(fixture.manager.advertise(Advertisement(localName: "Kept")))
            try await advertising.wait(timeout: Patience.step) {
                $0.values.last == .advertising || $0.completion != nil
            }
            let intruder = try DBusConnection(bus: fixture.bus.bus, loop: fixture.thread.loop)
            defer { intruder.close() }
            let path = try DBusObjectPath("\(fixture.manager.core.root.rawValue)/advertisement0")
            do {
                _ = try await intruder.call(
                    destination: fixture.manager.connection.uniqueName, path: path,
                    interface: "org.bluez.LEAdvertisement1", member: "Release"
                ).values.first { _ in true }
                Issue.record("Release from another connection was answered")
            } catch let DBusError.remote(name, _) {
                #expect(name == "org.freedesktop.DBus.Error.AccessDenied")
            }
            // The app never saw it: its advertisement is still exported, registered and advertising.
            #expect(advertising.completion == nil)
            #expect(advertising.values.last == .advertising)
            let name = try await intruder.call(
                destination: fixture.manager.connection.uniqueName, path: path,
                interface: "org.freedesktop.DBus.Properties", member: "Get",
                arguments: [.string("org.bluez.LEAdvertisement1"), .string("LocalName")]
            ).values.first { _ in true }
            #expect(name?.body.first?.unwrappingVariants == .string("Kept"))
            #expect(try await activeAdvertisements(fixture) == .byte(1))
        }
    }

    @Test func tooManyAdvertisementsFailTheOneTooMany() async throws {
        try await withFixture(PeripheralFixture(services: services())) { fixture in
            var running: [TestSubscriber<AdvertisingState, BluetoothError>] = []
            for index in 0..<4 {
                let advertising = TestSubscriber(fixture.manager.advertise(Advertisement(localName: "A\(index)")))
                try await advertising.wait(timeout: Patience.step) {
                    $0.values.last == .advertising || $0.completion != nil
                }
                running.append(advertising)
            }
            let fifth = TestSubscriber(fixture.manager.advertise(Advertisement(localName: "A4")))
            try await fifth.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(fifth.failure()?.kind == .notPermitted)
            #expect(running.allSatisfy { $0.completion == nil })
        }
    }

    @Test func registrationsAskedForAsTheManagerIsMadeStartOnceBluetoothdIsKnown() async throws {
        try await withFixture(PeripheralFixture(services: services())) { fixture in
            // A new manager does not know the owner of org.bluez yet: both machines wait for it, then start.
            // (The advertisement's state once stayed waitingForBluetoothd while advertising when the owner came
            // as it started: a test thread's publish landed after the loop's.)
            for round in 0..<20 {
                let manager = try PeripheralManager(
                    bus: fixture.bus.bus, adapter: "hci2", loop: fixture.peripheralThread.loop, services: services())
                let registration = TestSubscriber(manager.register())
                let advertising = TestSubscriber(manager.advertise(Advertisement(localName: "R\(round)")))
                try await registration.wait(timeout: Patience.step) {
                    $0.values.last == .registered || $0.completion != nil
                }
                try await advertising.wait(timeout: Patience.step) {
                    $0.values.last == .advertising || $0.completion != nil
                }
                #expect(registration.completion == nil && advertising.completion == nil)
                manager.close()
            }
        }
    }

    @Test func theRegistrationsStartOnTheManagersLoopThread() async throws {
        try await withFixture(PeripheralFixture(services: services())) { fixture in
            // Every event of a registration is handled on the loop thread, so that its actions (publishing the
            // state included) run in the order of its transitions: asked for on another thread, nothing starts
            // before the loop runs.
            let blocked = Atomic<Bool>(true)
            fixture.peripheralThread.loop.schedule {
                while blocked.load(ordering: .acquiring) { sched_yield() }
            }
            let registration = TestSubscriber(fixture.manager.register())
            let advertising = TestSubscriber(fixture.manager.advertise(Advertisement(localName: "Later")))
            let phases = fixture.manager.core.state.withLock { state in
                [state.application.phase] + state.advertisements.values.map(\.machine.phase)
            }
            blocked.store(false, ordering: .releasing)
            #expect(phases == [.idle, .idle])
            try await registration.wait(timeout: Patience.step) { $0.values.last == .registered }
            try await advertising.wait(timeout: Patience.step) { $0.values.last == .advertising }
        }
    }

    @Test func aCloseAsTheRegistrationStartsSendsNoRegistrationAfterItsUnregistration() async throws {
        // A stand-in for bluetoothd that records the calls it gets, in the order the bus brings them.
        let bus = try SimulatedBus()
        defer { bus.stop() }
        let bluetoothdThread = try EventLoopThread(name: "recording-bluetoothd")
        defer { bluetoothdThread.stop() }
        let managerThread = try EventLoopThread(name: "closing-manager")
        defer { managerThread.stop() }
        let calls = LockedBox<[String]>()
        let options = DBusType.dictionary(key: .string, value: .variant)
        func recorded(_ member: String, _ arguments: [DBusType]) -> DBusMethod {
            DBusMethod(name: member, inputSignature: DBusSignature(types: arguments)) { _ in
                calls.append(member)
                return []
            }
        }
        let bluetoothd = try DBusConnection(bus: bus.bus, loop: bluetoothdThread.loop)
        defer { bluetoothd.close() }
        try bluetoothd.export(
            DBusExportedObject(
                path: DBusObjectPath("/org/bluez/hci1"),
                interfaces: [
                    DBusInterface(
                        name: "org.bluez.GattManager1",
                        methods: [
                            recorded("RegisterApplication", [.objectPath, options]),
                            recorded("UnregisterApplication", [.objectPath]), recorded("Mark", []),
                        ])
                ]))
        #expect(try await bluetoothd.requestName("org.bluez").firstValue == .primaryOwner)
        let connection = try DBusConnection(bus: bus.bus, loop: managerThread.loop)
        defer { connection.close() }
        let manager = try PeripheralManager(connection: connection, adapter: "hci1", services: services())
        // The close comes from the state stream, on the loop thread, as the machine publishes `registering`
        // and before it performs its next action, `register`: that one must not go out after the close. (The
        // loop waits until the subscription is in place: a change made while it is handed over would reach it
        // later, from the loop's queue, after the machine's actions.)
        let blocked = Atomic<Bool>(true)
        managerThread.loop.schedule {
            while blocked.load(ordering: .acquiring) { sched_yield() }
        }
        let registration = TestSubscriber(
            manager.register().handleEvents(receiveOutput: { state in
                if state == .registering { manager.close() }
            }))
        blocked.store(false, ordering: .releasing)
        try await registration.wait(timeout: Patience.step) { $0.completion != nil }
        // (A state stream: the first value may be coalesced into `registering`.)
        #expect(registration.values.last == .registering)
        #expect(registration.completion == .finished)
        // A call sent after the close: bluetoothd has had everything the manager sent before it.
        _ = try await connection.call(
            destination: "org.bluez", path: DBusObjectPath("/org/bluez/hci1"), interface: "org.bluez.GattManager1",
            member: "Mark"
        ).firstValue
        #expect(calls.value == ["UnregisterApplication", "Mark"])
    }

    @Test func theLastCancelledSubscriptionUnregistersTheApplication() async throws {
        try await withFixture(PeripheralFixture(services: services())) { fixture in
            let first = TestSubscriber(fixture.manager.register())
            let second = TestSubscriber(fixture.manager.register())
            try await first.wait(timeout: Patience.step) { $0.values.last == .registered }
            try await second.wait(timeout: Patience.step) { $0.values.last == .registered }
            let root = DBusValue.objectPath(fixture.manager.core.root)
            first.cancel()
            // Still registered: registering again from the same connection is refused.
            await #expect(throws: DBusError.self) {
                _ = try await bluez(
                    fixture.manager.connection, "/org/bluez/hci1", "org.bluez.GattManager1", "RegisterApplication",
                    [root, .stringVariantDictionary([:])])
            }
            second.cancel()
            // Gone: unregistering again is refused.
            do {
                _ = try await bluez(
                    fixture.manager.connection, "/org/bluez/hci1", "org.bluez.GattManager1", "UnregisterApplication",
                    [root]
                )
                Issue.record("the application was still registered")
            } catch let DBusError.remote(name, _) {
                #expect(name == "org.bluez.Error.DoesNotExist")
            }
        }
    }

    @Test func aBluetoothdRestartRegistersTheApplicationAndAdvertisementAgain() async throws {
        try await withFixture(PeripheralFixture(services: services())) { fixture in
            let (registration, advertising) = try await fixture.serve(Advertisement(localName: "Phoenix"))
            let listened = try await fixture.connect()
            // The app's streams, subscribed once for the whole test.
            let subscribed = TestSubscriber(fixture.manager.isSubscribed(CharacteristicReference(level)))
            let writes = TestSubscriber(
                fixture.manager.writes(to: CharacteristicReference(setting)).handleEvents(receiveOutput: {
                    $0.respond()
                }))
            let notifications = TestSubscriber(listened.listen(to: CharacteristicReference(level)))
            try await subscribed.wait(timeout: Patience.step) { $0.values == [false, true] }
            try await listened.writeValue([1], to: CharacteristicReference(setting))
            try await writes.wait(timeout: Patience.step) { $0.valueCount == 1 }
            #expect(writes.values.map(\.value) == [[1]])
            await fixture.simulator.stop()
            // bluetoothd went with its subscriptions.
            try await subscribed.wait(timeout: Patience.step) { $0.values == [false, true, false] }
            notifications.cancel()
            try await registration.wait(timeout: Patience.step) { $0.values.last == .waitingForBluetoothd }
            try await advertising.wait(timeout: Patience.step) { $0.values.last == .waitingForBluetoothd }
            try await fixture.simulator.start()
            try await registration.wait(timeout: Patience.step) { $0.values.last == .registered }
            try await advertising.wait(timeout: Patience.step) { $0.values.last == .advertising }
            // State streams: coalesced, so the passing states may be skipped, never the order.
            #expect(registration.values.drop { $0 != .waitingForBluetoothd }.last == .registered)
            #expect(advertising.values.drop { $0 != .waitingForBluetoothd }.last == .advertising)
            try await fixture.central.waitUntilReady()
            let peripheral = try await fixture.connect()
            #expect(try await peripheral.readValue(CharacteristicReference(level)) == [42])
            // The streams the app subscribed before the restart go on: a new listener is seen, and its
            // notifications and writes pass.
            let again = TestSubscriber(peripheral.listen(to: CharacteristicReference(level)))
            try await subscribed.wait(timeout: Patience.step) { $0.values == [false, true, false, true] }
            try fixture.manager.send([43], on: CharacteristicReference(level))
            try await again.wait(timeout: Patience.step) { $0.values == [[43]] }
            try await peripheral.writeValue([2], to: CharacteristicReference(setting))
            try await writes.wait(timeout: Patience.step) { $0.valueCount == 2 }
            #expect(writes.values.map(\.value) == [[1], [2]])
            #expect(writes.completion == nil && subscribed.completion == nil)
            again.cancel()
            try await subscribed.wait(timeout: Patience.step) { $0.values == [false, true, false, true, false] }
        }
    }

    @Test func theConnectedCentralsStreamFollowsTheCentralsAndDisconnectsOne() async throws {
        try await withFixture(PeripheralFixture(services: services())) { fixture in
            let served = try await fixture.serve()
            let centrals = TestSubscriber(fixture.manager.connectedCentrals)
            try await centrals.wait(timeout: Patience.step) { $0.values.last == [] }
            let peripheral = try await fixture.connect()
            try await centrals.wait(timeout: Patience.step) {
                $0.values.last?.map(\.address) == [PeripheralFixture.centralAddress]
            }
            let connected = try #require(centrals.values.last?.first)
            #expect(connected.device.rawValue == "/org/bluez/hci1/dev_00_1A_7D_DA_71_13")
            let events = TestSubscriber(fixture.central.connectionEvents.setFailureType(to: BluetoothError.self))
            _ = try await fixture.manager.disconnect(connected).values.first { _ in true }
            try await centrals.wait(timeout: Patience.step) { $0.values.last == [] }
            try await events.wait(timeout: Patience.step) { record in
                record.values.contains { if case .disconnected = $0 { true } else { false } }
            }
            withExtendedLifetime((served, peripheral)) {}
        }
    }

    @Test func anAdapterPowerCycleDropsTheLinksAndServesAgain() async throws {
        try await withFixture(PeripheralFixture(services: services())) { fixture in
            let (registration, advertising) = try await fixture.serve()
            let before = try await fixture.connect()
            #expect(try await before.readValue(CharacteristicReference(level)) == [42])
            let events = TestSubscriber(fixture.central.connectionEvents.setFailureType(to: BluetoothError.self))
            try await fixture.simulator.setPowered(false, adapter: "hci1")
            try await events.wait(timeout: Patience.step) { record in
                record.values.contains { if case .disconnected = $0 { true } else { false } }
            }
            try await fixture.simulator.setPowered(true, adapter: "hci1")
            let after = try await fixture.connect()
            #expect(try await after.readValue(CharacteristicReference(level)) == [42])
            // bluetoothd keeps both registrations across the power cycle: the streams never ended.
            #expect(registration.completion == nil && registration.values.last == .registered)
            #expect(advertising.completion == nil && advertising.values.last == .advertising)
        }
    }
}
