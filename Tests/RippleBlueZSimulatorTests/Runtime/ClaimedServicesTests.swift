import Ripple
import RippleDBus
import RippleTestSupport
import Synchronization
import Testing

@testable import RippleBlueZSimulator

/// bluetoothd 5.66 (as traced in the `Scripts/bluez-guest` guest) takes some services for itself rather
/// than exporting them: a notifying Battery Level becomes `Battery1`, Generic Access gives the name until
/// the next advertisement, the PnP ID becomes the `Modalias`; pinned on the simulator.
@Suite struct ClaimedServicesTests {

    /// The battery plugin: `Battery1.Percentage` while connected, following the notified level; it goes
    /// first thing when the link ends.
    @Test func aBatteryServiceGivesTheDeviceBattery1WhileConnected() async throws {
        try await withFixture(SimulatorFixture(world: DeviceTimeline.world([.battery(level: 87)]))) { fixture in
            let log = try await DeviceTimeline.log(fixture)
            try await fixture.connectAndResolve(monitorPath)
            let battery = "org.bluez.Battery1"
            _ = await log.wait { DeviceTimeline.timeline($0).contains("+Battery1") }
            #expect(try await fixture.property(monitorPath, battery, "Percentage") == .byte(87))
            try await fixture.simulator.notify(peripheral: monitorAddress, characteristic: .batteryLevel, value: [55])
            #expect(try await fixture.property(monitorPath, battery, "Percentage") == .byte(55))
            try await DeviceTimeline.disconnect(fixture, log)
            #expect(
                Array(DeviceTimeline.timeline(log.messages).suffix(3)) == [
                    "-Battery1", "ServicesResolved=false", "Connected=false",
                ])
            #expect(try await fixture.managedObjects()[monitorPath]?[battery] == nil)
        }
    }

    /// The GAP plugin claims Generic Access (never exported) and takes its name and appearance; the next
    /// advertisement's name takes over again. `UUIDs` is then the database's services, sorted.
    @Test func genericAccessIsClaimedAndItsNameTakenUntilTheNextAdvertisement() async throws {
        try await withFixture(
            SimulatorFixture(
                world: DeviceTimeline.world([
                    SimulatedService(
                        uuid: 0x180D,
                        characteristics: [SimulatedCharacteristic(uuid: 0x2A38, flags: [.read], value: [1])]),
                    SimulatedService(
                        uuid: 0x1800,
                        characteristics: [
                            SimulatedCharacteristic(uuid: 0x2A00, flags: [.read], value: Array("Thermo 9".utf8)),
                            SimulatedCharacteristic(uuid: 0x2A01, flags: [.read], value: [0x41, 0x03]),
                        ]),
                ]))
        ) { fixture in
            try await fixture.connectAndResolve(monitorPath)
            let services = try await fixture.managedObjects().values.compactMap {
                $0["org.bluez.GattService1"]?["UUID"]
            }
            #expect(services == [.string("0000180d-0000-1000-8000-00805f9b34fb")])
            #expect(
                try await fixture.property(monitorPath, deviceInterface, "UUIDs")
                    == .array(
                        .string,
                        [
                            .string("00001800-0000-1000-8000-00805f9b34fb"),
                            .string("0000180d-0000-1000-8000-00805f9b34fb"),
                        ]))
            #expect(try await fixture.property(monitorPath, deviceInterface, "Name") == .string("Thermo 9"))
            #expect(try await fixture.property(monitorPath, deviceInterface, "Alias") == .string("Thermo 9"))
            #expect(try await fixture.property(monitorPath, deviceInterface, "Appearance") == .uint16(0x0341))
            let log = try await DeviceTimeline.log(fixture)
            try await DeviceTimeline.disconnect(fixture, log)
            _ = try await fixture.call(hci0, adapterInterface, "StartDiscovery")
            _ = await log.wait { DeviceTimeline.timeline($0).contains { $0.contains("Name=\"Monitor\"") } }
            #expect(try await fixture.property(monitorPath, deviceInterface, "Alias") == .string("Monitor"))
        }
    }

    /// The Device Information plugin turns the PnP ID into `Modalias` (here the one bluetoothd 5.66
    /// serves itself: USB vendor 0x1D6B, product 0x0246, version 0x0542).
    @Test func thePnPIDBecomesTheModalias() async throws {
        try await withFixture(
            SimulatorFixture(
                world: DeviceTimeline.world([
                    SimulatedService(
                        uuid: 0x180A,
                        characteristics: [
                            SimulatedCharacteristic(
                                uuid: 0x2A50, flags: [.read], value: [0x02, 0x6B, 0x1D, 0x46, 0x02, 0x42, 0x05])
                        ])
                ]))
        ) { fixture in
            #expect(try await fixture.property(monitorPath, deviceInterface, "Modalias") == nil)
            try await fixture.connectAndResolve(monitorPath)
            let log = try await DeviceTimeline.log(fixture)
            if try await fixture.property(monitorPath, deviceInterface, "Modalias") == nil {
                _ = await log.wait { DeviceTimeline.timeline($0).contains { $0.hasPrefix("Modalias") } }
            }
            #expect(
                try await fixture.property(monitorPath, deviceInterface, "Modalias") == .string("usb:v1D6Bp0246d0542"))
            #expect(
                SimulatedDevice.modalias(pnpID: [0x01, 0x0F, 0x00, 0x01, 0x00, 0x10, 0x00])
                    == "bluetooth:v000Fp0001d0010")
            #expect(SimulatedDevice.modalias(pnpID: [0x03, 0, 0, 0, 0, 0, 0]) == nil)
            #expect(SimulatedDevice.modalias(pnpID: [0x01, 0, 0]) == nil)
        }
    }
}
