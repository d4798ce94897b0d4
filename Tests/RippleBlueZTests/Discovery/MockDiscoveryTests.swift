import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleTestSupport
import Testing

/// Pipelines fed mock discoveries, as the seed libraries' tests feed theirs, and known peripherals found by
/// service without a scan.
@Suite(.timeLimit(Patience.test)) struct MockDiscoveryTests {
    static let thermometer: BluetoothUUID = "5249504C-7E30-4000-8000-000000000000"

    @Test func aPipelineRunsOnMockDiscoveries() async throws {
        var stored = Lab.peripheral
        stored.isKnown = true
        try await withFixture(CentralFixture(world: SimulatedWorld(peripherals: [.init(stored)]))) { fixture in
            let peripheral = try #require(fixture.central.knownPeripherals.first)
            let mocks = [
                PeripheralDiscovery(peripheral: peripheral, name: "far", rssi: -91, serviceUUIDs: [.heartRate]),
                PeripheralDiscovery(peripheral: peripheral, name: "near", rssi: -42, serviceUUIDs: [.heartRate]),
                PeripheralDiscovery(peripheral: peripheral, name: "other", rssi: -40, serviceUUIDs: [Self.thermometer]),
            ]
            var names: [String] = []
            var completed = false
            let cancellable = mocks.publisher
                .filter { $0.serviceUUIDs.contains(.heartRate) && ($0.rssi ?? -127) > -70 }
                .map { $0.name ?? "unnamed" }
                .sink(receiveCompletion: { _ in completed = true }, receiveValue: { names.append($0) })
            #expect(names == ["near"])
            #expect(completed)
            cancellable.cancel()
            #expect(mocks[1].description == "near (C0:FF:EE:00:00:0A) -42 dBm")
        }
    }

    @Test func knownPeripheralsCarryTheServiceUUIDsBluetoothdKnows() async throws {
        var stored = Lab.peripheral
        stored.isKnown = true
        stored.advertisedServices = [Lab.service, Self.thermometer]
        try await withFixture(CentralFixture(world: SimulatedWorld(peripherals: [.init(stored)]))) { fixture in
            let withThermometer = fixture.central.knownPeripherals.filter { $0.serviceUUIDs.contains(Self.thermometer) }
            #expect(withThermometer.map(\.address) == [Lab.address])
            #expect(withThermometer.first?.serviceUUIDs == [Lab.service, Self.thermometer])
            #expect(withThermometer.first?.isConnected == false)
        }
    }
}
