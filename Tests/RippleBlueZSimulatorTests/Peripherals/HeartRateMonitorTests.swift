import Testing

@testable import RippleBlueZSimulator

@Suite struct HeartRateMonitorTests {
    private func characteristic(_ uuid: BluetoothUUID, in service: SimulatedService) -> SimulatedCharacteristic? {
        service.characteristics.first { $0.uuid == uuid }
    }

    @Test func measurementFlagsAndFieldsFollowTheSpecification() {
        let plain = SimulatedHeartRateMeasurement(beatsPerMinute: 72, sensorContact: .notSupported)
        #expect(plain.bytes == [0x00, 72])
        let full = SimulatedHeartRateMeasurement(
            beatsPerMinute: 72, energyExpended: 0x0102, rrIntervals: [853, 0x0400])
        // UINT8 value, contact supported and detected (0b110), energy (0x08), RR (0x10).
        #expect(full.flags == 0x1E)
        #expect(full.bytes == [0x1E, 72, 0x02, 0x01, 0x55, 0x03, 0x00, 0x04])
        #expect(SimulatedHeartRateMeasurement(beatsPerMinute: 60, sensorContact: .notDetected).bytes == [0x04, 60])
        #expect(
            SimulatedHeartRateMeasurement(beatsPerMinute: 300, sensorContact: .notSupported).bytes == [
                0x01, 0x2C, 0x01,
            ])
        #expect(
            SimulatedHeartRateMeasurement(beatsPerMinute: 80, usesUInt16Format: true, sensorContact: .notSupported)
                .bytes
                == [0x01, 80, 0])
    }

    @Test func measurementsParseBackAndMalformedBytesAreRefused() {
        let samples = [
            SimulatedHeartRateMeasurement(beatsPerMinute: 72, energyExpended: 12, rrIntervals: [853]),
            SimulatedHeartRateMeasurement(
                beatsPerMinute: 300, usesUInt16Format: true, sensorContact: .notDetected, rrIntervals: [205, 210]),
            SimulatedHeartRateMeasurement(beatsPerMinute: 55, usesUInt16Format: true, sensorContact: .notSupported),
        ]
        for sample in samples {
            #expect(SimulatedHeartRateMeasurement(bytes: sample.bytes) == sample)
        }
        for malformed: [UInt8] in [
            [], [0x00], [0x01, 72], [0x08, 72, 1], [0x10, 72], [0x10, 72, 1], [0x00, 72, 9],
        ] {
            #expect(SimulatedHeartRateMeasurement(bytes: malformed) == nil, "\(malformed)")
        }
    }

    @Test func rrIntervalsAreIn1024thsOfASecond() {
        #expect(SimulatedHeartRateMeasurement.rrInterval(beatsPerMinute: 60) == 1024)
        #expect(SimulatedHeartRateMeasurement.rrInterval(beatsPerMinute: 72) == 853)
        #expect(SimulatedHeartRateMeasurement.rrInterval(beatsPerMinute: 120) == 512)
        #expect(SimulatedHeartRateMeasurement.rrInterval(beatsPerMinute: 0) == UInt16.max)
    }

    @Test func theRestingMinuteIsRealistic() {
        let minute = SimulatedHeartRateMeasurement.restingMinute
        #expect(minute.count == 60)
        for (second, measurement) in minute.enumerated() {
            #expect((66...78).contains(measurement.beatsPerMinute))
            #expect(measurement.sensorContact == .detected)
            #expect((1...2).contains(measurement.rrIntervals.count), "second \(second)")
            let expected = SimulatedHeartRateMeasurement.rrInterval(beatsPerMinute: measurement.beatsPerMinute)
            #expect(measurement.rrIntervals.allSatisfy { $0 == expected })
            #expect(measurement.energyExpended == (second % 10 == 0 ? UInt16(second / 10) : nil))
            #expect(SimulatedHeartRateMeasurement(bytes: measurement.bytes) == measurement)
        }
        // About as many beats as the mean rate says: 60 s at ~71 bpm.
        let beats = minute.reduce(0) { $0 + $1.rrIntervals.count }
        #expect((66...78).contains(beats))
    }

    @Test func heartRateServiceHasTheAssignedNumbersAndFlags() throws {
        let service = SimulatedService.heartRate(location: .wrist)
        #expect(service.uuid == BluetoothUUID("0000180d-0000-1000-8000-00805f9b34fb"))
        #expect(service.isPrimary)
        #expect(service.characteristics.map(\.uuid) == [0x2A37, 0x2A38, 0x2A39])
        let measurement = try #require(characteristic(0x2A37, in: service))
        #expect(measurement.flags == [.notify])
        let source = try #require(measurement.notificationSource)
        #expect(source.rate == 1)
        #expect(source.count == nil)
        #expect(source.problem == nil)
        #expect(source.payload(sequence: 0) == SimulatedHeartRateMeasurement.restingMinute[0].bytes)
        #expect(source.payload(sequence: 61) == SimulatedHeartRateMeasurement.restingMinute[1].bytes)
        let location = try #require(characteristic(0x2A38, in: service))
        #expect(location.flags == [.read])
        #expect(location.value == [2])
        #expect(try #require(characteristic(0x2A39, in: service)).flags == [.write])
    }

    @Test func controlPointResetsEnergyExpendedAndRefusesAnythingElse() throws {
        let custom = [SimulatedHeartRateMeasurement(beatsPerMinute: 90, energyExpended: 40, rrIntervals: [683])]
        let service = SimulatedService.heartRate(measurements: custom, rate: 2)
        let handler = try #require(characteristic(0x2A39, in: service)?.onWrite)
        let response = try handler(GATTWriteRequest(value: [0x01]))
        let expected = SimulatedHeartRateMeasurement(beatsPerMinute: 90, energyExpended: 0, rrIntervals: [683])
        #expect(response.notifications == [SimulatedNotification(expected.bytes, on: 0x2A37)])
        for value: [UInt8] in [[], [0x00], [0x02], [0xFF], [0x01, 0x00]] {
            #expect(throws: BlueZError.failed("Operation failed with ATT error: 0x80")) {
                try handler(GATTWriteRequest(value: value))
            }
        }
        #expect(throws: BlueZError.attError(0x80)) { try handler(GATTWriteRequest(value: [0x01], offset: 1)) }
    }

    @Test func emptyMeasurementsFallBackToTheRestingMinute() throws {
        let service = SimulatedService.heartRate(measurements: [])
        let source = try #require(characteristic(0x2A37, in: service)?.notificationSource)
        #expect(source.payload == .cycle(SimulatedHeartRateMeasurement.restingMinute.map(\.bytes)))
    }

    @Test func bodySensorLocationsHaveTheirCodesAndNames() {
        #expect(SimulatedBodySensorLocation.allCases.map(\.rawValue) == [0, 1, 2, 3, 4, 5, 6])
        #expect(SimulatedBodySensorLocation(name: "ear-lobe") == .earLobe)
        #expect(SimulatedBodySensorLocation(name: "elbow") == nil)
        #expect(SimulatedBodySensorLocation.allCases.allSatisfy { SimulatedBodySensorLocation(name: $0.name) == $0 })
    }

    @Test func readyMadeMonitorLooksLikeAChestStrap() throws {
        let monitor = SimulatedPeripheral.heartRateMonitor(address: "AA:BB:CC:DD:EE:FF", batteryLevel: 150)
        #expect(monitor.name == "Ripple HRM")
        #expect(monitor.appearance == 0x0341)
        #expect(monitor.advertisedServices == [0x180D])
        #expect(monitor.services.map(\.uuid) == [0x180D, 0x180F, 0x180A])
        #expect(monitor.services[1].characteristics[0].value == [100])
        let information = monitor.services[2]
        #expect(
            information.characteristics.first { $0.uuid == .systemID }?.value
                == [0xFF, 0xEE, 0xDD, 0xFE, 0xFF, 0xCC, 0xBB, 0xAA])
        #expect(
            information.characteristics.first { $0.uuid == .manufacturerNameString }?.value
                == Array("Ripple Devices".utf8))
    }
}
