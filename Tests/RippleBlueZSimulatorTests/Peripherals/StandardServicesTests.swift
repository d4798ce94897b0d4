import Testing

@testable import RippleBlueZSimulator

@Suite struct StandardServicesTests {
    @Test func batteryLevelIsOneReadableNotifyingPercentage() throws {
        let service = SimulatedService.battery(level: 42)
        #expect(service.uuid == BluetoothUUID("0000180f-0000-1000-8000-00805f9b34fb"))
        let level = try #require(service.characteristics.first)
        #expect(service.characteristics.count == 1)
        #expect(level.uuid == 0x2A19)
        #expect(level.flags == [.read, .notify])
        #expect(level.value == [42])
        let format = try #require(level.descriptors.first)
        #expect(format.uuid == 0x2904)
        // uint8, exponent 0, percentage (0x27AD), Bluetooth SIG namespace, no description.
        #expect(format.value == [0x04, 0x00, 0xAD, 0x27, 0x01, 0x00, 0x00])
        #expect(SimulatedService.battery(level: 101).characteristics[0].value == [100])
        #expect(SimulatedService.battery().characteristics[0].value == [87])
    }

    @Test func deviceInformationListsThePresentFieldsInOrder() {
        let information = SimulatedDeviceInformation(
            manufacturerName: "Acme", modelNumber: "M1", serialNumber: "S1", hardwareRevision: "H",
            firmwareRevision: "F", softwareRevision: "W", systemID: [1, 2, 3, 4, 5, 6, 7, 8],
            pnpID: SimulatedPnPID(
                vendorIDSource: .usbImplementersForum, vendorID: 0x1915, productID: 0x520F, productVersion: 0x0102))
        let service = SimulatedService.deviceInformation(information)
        #expect(service.uuid == 0x180A)
        #expect(
            service.characteristics.map(\.uuid) == [0x2A29, 0x2A24, 0x2A25, 0x2A27, 0x2A26, 0x2A28, 0x2A23, 0x2A50])
        #expect(service.characteristics.allSatisfy { $0.flags == [.read] && $0.descriptors.isEmpty })
        #expect(service.characteristics[0].value == Array("Acme".utf8))
        #expect(service.characteristics[6].value == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(service.characteristics[7].value == [0x02, 0x15, 0x19, 0x0F, 0x52, 0x02, 0x01])
        let sparse = SimulatedService.deviceInformation(SimulatedDeviceInformation(modelNumber: "only"))
        #expect(sparse.characteristics.map(\.uuid) == [0x2A24])
    }

    @Test func pnpIDIsSevenLittleEndianBytes() {
        let pnp = SimulatedPnPID(vendorID: 0x0059, productID: 0x0001, productVersion: 0x0142)
        #expect(pnp.bytes == [0x01, 0x59, 0x00, 0x01, 0x00, 0x42, 0x01])
    }

    @Test func systemIDIsTheAddressAsEUI64LeastSignificantFirst() {
        #expect(
            SimulatedDeviceInformation.systemID(for: "00:1A:7D:DA:71:13") == [
                0x13, 0x71, 0xDA, 0xFE, 0xFF, 0x7D, 0x1A, 0x00,
            ])
    }

    @Test func readyMadeAttributeNumbers() {
        let expected: [(BluetoothUUID, UInt16)] = [
            (.heartRate, 0x180D), (.heartRateMeasurement, 0x2A37), (.bodySensorLocation, 0x2A38),
            (.heartRateControlPoint, 0x2A39), (.battery, 0x180F), (.batteryLevel, 0x2A19),
            (.deviceInformation, 0x180A), (.manufacturerNameString, 0x2A29), (.modelNumberString, 0x2A24),
            (.serialNumberString, 0x2A25), (.firmwareRevisionString, 0x2A26), (.hardwareRevisionString, 0x2A27),
            (.softwareRevisionString, 0x2A28), (.systemID, 0x2A23), (.pnpID, 0x2A50),
            (.characteristicUserDescription, 0x2901), (.characteristicPresentationFormat, 0x2904),
        ]
        for (uuid, number) in expected {
            #expect(uuid.shortForm == number, "\(uuid)")
        }
    }
}
