import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleTestKit
import RippleTestSupport
import Testing

@Suite(.timeLimit(Patience.test)) struct DatabaseChangeTests {
    private let sensor = CharacteristicReference(Lab.sensor)
    private let lab: BluetoothAddress = Lab.address

    /// The lab's database after a firmware update: a new characteristic before the sensor, so that the
    /// sensor's handle and object path change.
    private var updatedServices: [SimulatedService] {
        var services = Lab.peripheral.services
        services[0].characteristics.insert(
            SimulatedCharacteristic(uuid: "5249504c-1ab0-4000-8000-0000000000ff", flags: [.read], value: [0x42]), at: 0)
        return services
    }

    @Test(arguments: [NotificationTransport.automatic, .bus])
    func listenersFollowTheirCharacteristicThroughADatabaseChange(transport: NotificationTransport) async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let before = try #require(
                peripheral.services.first?.characteristics.first { $0.uuid == Lab.sensor }?.path)
            let listener = TestSubscriber(peripheral.listen(to: sensor, transport: transport))
            try await fixture.simulator.waitUntilNotifying(peripheral: lab, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[1]])
            try await listener.wait(timeout: Patience.step) { $0.valueCount == 1 }

            try await fixture.simulator.changeServices(of: lab, to: updatedServices)
            try await fixture.simulator.waitUntilNotifying(peripheral: lab, characteristic: Lab.sensor)
            let after = try #require(
                peripheral.services.first?.characteristics.first { $0.uuid == Lab.sensor }?.path)
            #expect(after != before)
            try await fixture.notify(Lab.sensor, [[2]])
            try await listener.wait(timeout: Patience.step) { $0.valueCount == 2 }
            #expect(listener.values == [[1], [2]])
            #expect(listener.completion == nil)
            #expect(try await peripheral.readValue(sensor) == [2])
            let added = CharacteristicReference(BluetoothUUID("5249504c-1ab0-4000-8000-0000000000ff"))
            #expect(try await peripheral.readValue(added) == [0x42])
        }
    }
}
