import RippleBlueZ
import RippleBlueZSimulator
// A file importing the client and the simulator, as the "Testing on the simulator" article does: every name
// resolves without a module qualifier. The vocabulary (BluetoothUUID, BluetoothAddress, CharacteristicProperties)
// is one type from RippleBluetooth; the characteristic codecs are the client's, the simulator's builders are
// `Simulated…`, written from the specification on their own.
import Testing

struct BothModulesInOneFileTests {
    static let sensor: BluetoothAddress = "C0:FF:EE:00:00:42"
    static let custom: BluetoothUUID = "5249504C-1AB0-4000-8000-0000000000AA"

    @Test func theClientDecodesWhatTheSimulatorEncodes() throws {
        let sent = SimulatedHeartRateMeasurement(beatsPerMinute: 72, energyExpended: 12, rrIntervals: [853])
        let read = try HeartRateMeasurement(bluetoothBytes: sent.bytes)
        #expect(
            read
                == HeartRateMeasurement(
                    beatsPerMinute: 72, sensorContact: .detected, energyExpended: 12, rrIntervalTicks: [853]))
        #expect(BodySensorLocation(rawValue: SimulatedBodySensorLocation.wrist.rawValue) == .wrist)
        let pnp = SimulatedPnPID(vendorID: 0x0059, productID: 0x0001, productVersion: 0x0142)
        #expect(
            try PnPID(bluetoothBytes: pnp.bytes)
                == PnPID(vendorIDSource: .bluetoothSIG, vendorID: 0x0059, productID: 0x0001, productVersion: 0x0142))
        let information = SimulatedService.deviceInformation(
            SimulatedDeviceInformation(manufacturerName: "Ripple Devices"))
        #expect(information.characteristics.map(\.uuid) == [.manufacturerNameString])
        let notification = SimulatedNotification([1, 2], on: Self.custom)
        #expect(notification.characteristic == Self.custom)
    }

    @Test func theVocabularyIsOneTypeOnBothSides() {
        let peripheral = SimulatedPeripheral(address: Self.sensor, advertisedServices: [.heartRate, Self.custom])
        let characteristic = SimulatedCharacteristic(uuid: Self.custom, flags: [.read, .notify])
        let properties: CharacteristicProperties = characteristic.flags
        #expect(peripheral.address.description == "C0:FF:EE:00:00:42")
        #expect(peripheral.advertisedServices == [BluetoothUUID.heartRate, Self.custom])
        #expect(properties.bluezNames == ["read", "notify"])
    }
}
