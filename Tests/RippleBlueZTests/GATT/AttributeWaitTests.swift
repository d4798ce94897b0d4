import Ripple
import RippleBlueZSimulator
import RippleDBus
import RippleTestKit
import RippleTestSupport
import Testing

@testable import RippleBlueZ

/// An operation whose attribute bluetoothd has not exported yet waits for it, at most the central's
/// attribute timeout: after a Service Changed (bluetoothd re-discovering the changed range) and after a
/// reconnection whose database changed meanwhile (resolved from the stale cache first). The simulator
/// exports the new database `rediscovery` after the change; the waits run on the loop's timers.
@Suite(.timeLimit(Patience.test)) struct AttributeWaitTests {
    enum Change: String, CaseIterable, Sendable {
        /// The database changes while connected (a Service Changed indication).
        case serviceChanged
        /// The database changes while disconnected; the next connection finds it out after resolving.
        case reconnection
    }

    private let lab: BluetoothAddress = Lab.address
    private static let added: BluetoothUUID = "5249504c-1ab0-4000-8000-0000000000ff"
    /// Long enough that the reads are asked for before the export even on a loaded machine.
    private let rediscovery: Duration = .milliseconds(2_500)

    /// The lab's database after a firmware update: a new characteristic before the sensor.
    private var updatedServices: [SimulatedService] {
        var services = Lab.peripheral.services
        services[0].characteristics.insert(
            SimulatedCharacteristic(uuid: Self.added, flags: [.read], value: [0x42]), at: 0)
        return services
    }

    private var addedReference: CharacteristicReference {
        CharacteristicReference(Self.added)
    }

    /// Changes the lab's database the way `change` says and returns the peripheral, connected, with the
    /// new database not exported yet.
    private func changeDatabase(_ change: Change, on fixture: CentralFixture) async throws -> Peripheral {
        let peripheral = try await fixture.connect()
        switch change {
        case .serviceChanged:
            // Returns once the central has seen the old objects go.
            let removals = TestSubscriber(
                fixture.central.core.treeEvents.filter { event in
                    if case .interfacesRemoved(_, let interfaces) = event {
                        return interfaces.contains("org.bluez.GattCharacteristic1")
                    }
                    return false
                }.setFailureType(to: BluetoothError.self))
            try await fixture.simulator.changeServices(of: lab, to: updatedServices, rediscovery: rediscovery)
            try await removals.wait(timeout: Patience.step) { !$0.values.isEmpty }
            removals.cancel()
            return peripheral
        case .reconnection:
            try await peripheral.disconnectPeripheral()
            try await fixture.simulator.changeServices(of: lab, to: updatedServices, rediscovery: rediscovery)
            let again = try await fixture.central.connectPeripheral(to: Lab.address)
            // Resolved from the stale cache: the new characteristic is not there yet.
            #expect(!again.services.flatMap(\.characteristics).contains { $0.uuid == addedReference.uuid })
            return again
        }
    }

    @Test(arguments: Change.allCases)
    func aCharacteristicExportedLateIsFound(change: Change) async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await changeDatabase(change, on: fixture)
            // Not exported when the reads are asked for: they wait for it.
            #expect(!peripheral.services.flatMap(\.characteristics).contains { $0.uuid == addedReference.uuid })
            let added = TestSubscriber(peripheral.read(addedReference))
            let sensor = TestSubscriber(peripheral.read(CharacteristicReference(Lab.sensor)))
            try await added.wait(timeout: Patience.step) { $0.completion != nil }
            try await sensor.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(added.values == [[0x42]])
            #expect(added.completion == .finished)
            #expect(sensor.values == [[0]])
            #expect(sensor.completion == .finished)
        }
    }

    @Test(arguments: Change.allCases)
    func aCharacteristicNeverExportedFailsWhenTheBoundPasses(change: Change) async throws {
        try await withFixture(CentralFixture(world: Lab.world, attributeTimeout: .seconds(3))) { fixture in
            let peripheral = try await changeDatabase(change, on: fixture)
            let missing = CharacteristicReference(
                BluetoothUUID(uuidString: "5249504c-1ab0-4000-8000-0000000000ee") ?? BluetoothUUID(0))
            let clock = ContinuousClock()
            let start = clock.now
            let read = TestSubscriber(peripheral.read(missing))
            // The operation behind it waits its turn, then runs.
            let next = TestSubscriber(peripheral.read(addedReference))
            try await read.wait(timeout: Patience.step) { $0.completion != nil }
            let elapsed = clock.now - start
            guard let error = read.failure() else {
                return
            }
            #expect(error.kind == .attributeNotFound)
            #expect(error.message.contains("waited"))
            #expect(elapsed >= .seconds(3))
            #expect(elapsed < .seconds(8))
            try await next.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(next.values == [[0x42]])
        }
    }

    /// The bound is 5 s unless the central is given another, by either initialiser: the value a central made
    /// without one holds is the one its operations wait for (the tests above show a given bound honoured),
    /// so the default is pinned without waiting it out.
    @Test func theBoundIsFiveSecondsByDefault() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let onBus = try Central(bus: fixture.bus.bus, loop: fixture.thread.loop)
            #expect(onBus.core.attributeTimeout == .seconds(5))
            onBus.close()
            let connection = try DBusConnection(bus: fixture.bus.bus, loop: fixture.thread.loop)
            let onConnection = Central(connection: connection)
            #expect(onConnection.core.attributeTimeout == .seconds(5))
            onConnection.close()
            connection.close()
        }
    }

    /// Right after `connect`, nothing waits: the refreshed tree holds the whole database.
    @Test func anUnknownCharacteristicRightAfterConnectWaitsOnlyTheBound() async throws {
        try await withFixture(CentralFixture(world: Lab.world, attributeTimeout: .milliseconds(300))) { fixture in
            let peripheral = try await fixture.connect()
            #expect(peripheral.services.first?.characteristics.count == 4)
            let clock = ContinuousClock()
            let start = clock.now
            do throws(BluetoothError) {
                _ = try await peripheral.readValue(addedReference)
                Issue.record("read a characteristic the peripheral does not have")
            } catch {
                #expect(error.kind == .attributeNotFound)
            }
            #expect(clock.now - start >= .milliseconds(300))
        }
    }
}
