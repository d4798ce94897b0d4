import RippleBlueZ
import RippleTestKit
import Testing

@Suite struct HeartRateMeasurementTests {
    /// Every combination of the five flag bits, with a rate, energy and two RR-intervals where the flags
    /// announce them.
    @Test(arguments: 0..<32)
    func everyFlagCombinationDecodesItsFields(flags: Int) throws {
        let flags = UInt8(flags)
        var bytes: [UInt8] = [flags]
        bytes += flags & 0x01 == 0 ? [72] : [0x2C, 0x01]  // 72, or 300 on 16 bits
        if flags & 0x08 != 0 { bytes += [0x34, 0x12] }  // 0x1234 kJ
        if flags & 0x10 != 0 { bytes += [0x00, 0x04, 0x00, 0x02] }  // 1024 and 512 ticks
        let measurement = try HeartRateMeasurement(bluetoothBytes: bytes)
        #expect(measurement.beatsPerMinute == (flags & 0x01 == 0 ? 72 : 300))
        let contact: HeartRateMeasurement.SensorContact =
            switch (flags >> 1) & 0x03 {
            case 3: .detected
            case 2: .notDetected
            default: .notSupported
            }
        #expect(measurement.sensorContact == contact)
        #expect(measurement.energyExpended == (flags & 0x08 == 0 ? nil : 0x1234))
        #expect(measurement.rrIntervalTicks == (flags & 0x10 == 0 ? [] : [1024, 512]))
        #expect(measurement.rrIntervals == (flags & 0x10 == 0 ? [] : [1.0, 0.5]))
        // Encoding gives back a measurement equal to it.
        #expect(try HeartRateMeasurement(bluetoothBytes: measurement.bluetoothBytes) == measurement)
    }

    @Test func encodingUsesEightBitsWhenTheRateFits() {
        #expect(HeartRateMeasurement(beatsPerMinute: 60).bluetoothBytes == [0x00, 60])
        #expect(
            HeartRateMeasurement(beatsPerMinute: 256, sensorContact: .detected).bluetoothBytes == [0x07, 0x00, 0x01])
        #expect(
            HeartRateMeasurement(beatsPerMinute: 70, energyExpended: 5, rrIntervalTicks: [850]).bluetoothBytes
                == [0x18, 70, 5, 0, 0x52, 0x03])
        #expect(
            HeartRateMeasurement(beatsPerMinute: 72, sensorContact: .detected, rrIntervalTicks: [850]).description
                == "72 bpm, contact detected, RR 0.83 s")
    }

    @Test func missingFieldsFailWithWhereAndWhat() {
        let cases: [([UInt8], ValueDecodingError)] = [
            ([], .init(typeName: "HeartRateMeasurement", offset: 0, reason: .tooFewBytes(needed: 1, available: 0))),
            ([0x00], .init(typeName: "HeartRateMeasurement", offset: 1, reason: .tooFewBytes(needed: 1, available: 0))),
            (
                [0x01, 0x48],
                .init(typeName: "HeartRateMeasurement", offset: 1, reason: .tooFewBytes(needed: 2, available: 1))
            ),
            (
                [0x08, 0x48, 0x01],
                .init(typeName: "HeartRateMeasurement", offset: 2, reason: .tooFewBytes(needed: 2, available: 1))
            ),
            (
                [0x10, 0x48, 0x01, 0x02, 0x03],
                .init(
                    typeName: "HeartRateMeasurement", offset: 2,
                    reason: .invalidValue("RR-intervals take 2 bytes each; 3 bytes are left"))
            ),
        ]
        for (bytes, expected) in cases {
            #expect(throws: expected) { _ = try HeartRateMeasurement(bluetoothBytes: bytes) }
        }
    }

    @Test func randomBytesGiveAMeasurementOrATypedError() {
        var random = SeededRandomNumberGenerator(seed: 0x4852_4D00)
        var decoded = 0
        for _ in 0..<10_000 {
            let count = Int(random.next() % 31)
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            do {
                let measurement = try HeartRateMeasurement(bluetoothBytes: bytes)
                #expect((0...65_535).contains(measurement.beatsPerMinute))
                decoded += 1
            } catch {
                #expect(error.typeName == "HeartRateMeasurement")
            }
        }
        #expect(decoded > 0)
    }

    @Test func bodySensorLocationsKeepReservedValues() throws {
        #expect(try BodySensorLocation(bluetoothBytes: [1]) == .chest)
        #expect(try BodySensorLocation(bluetoothBytes: [6]) == .foot)
        #expect(try BodySensorLocation(bluetoothBytes: [0x42]) == .reserved(0x42))
        #expect(BodySensorLocation.reserved(0x42).bluetoothBytes == [0x42])
        #expect(
            throws: ValueDecodingError(
                typeName: "BodySensorLocation", offset: 0, reason: .tooFewBytes(needed: 1, available: 0))
        ) {
            _ = try BodySensorLocation(bluetoothBytes: [])
        }
        #expect(
            throws: ValueDecodingError(
                typeName: "BodySensorLocation", offset: 1, reason: .unexpectedLength(expected: 1, found: 2))
        ) {
            _ = try BodySensorLocation(bluetoothBytes: [1, 2])
        }
    }
}
