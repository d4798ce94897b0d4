import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleTestKit
import RippleTestSupport
import Testing

@Suite(.timeLimit(Patience.test)) struct StandardCharacteristicTests {
    @Test func batteryLevelIsAPercentage() throws {
        #expect(try BatteryLevel(bluetoothBytes: [87]).percent == 87)
        #expect(BatteryLevel(percent: 140).bluetoothBytes == [100])
        // `percent` is a var: a value set out of range after init is sent clamped, never trapped on.
        var level = BatteryLevel(percent: 50)
        level.percent = 300
        #expect(level.bluetoothBytes == [100])
        level.percent = -4
        #expect(level.bluetoothBytes == [0])
        #expect(
            throws: ValueDecodingError(
                typeName: "BatteryLevel", offset: 0, reason: .invalidValue("101 % is above 100 %"))
        ) {
            _ = try BatteryLevel(bluetoothBytes: [101])
        }
        #expect(
            throws: ValueDecodingError(
                typeName: "BatteryLevel", offset: 1, reason: .unexpectedLength(expected: 1, found: 2))
        ) {
            _ = try BatteryLevel(bluetoothBytes: [50, 0])
        }
    }

    @Test func temperatureMeasurementsDecodeEveryField() throws {
        // 36.4 °C: FLOAT 364 × 10⁻¹, little-endian 6C 01 00 FF.
        let plain = try TemperatureMeasurement(bluetoothBytes: [0x00, 0x6C, 0x01, 0x00, 0xFF])
        #expect(plain == TemperatureMeasurement(value: 36.4, unit: .celsius))
        // 98.6 °F with a time stamp (2026-11-24 19:30:05) and type 6 (mouth).
        let full = try TemperatureMeasurement(bluetoothBytes: [
            0x07, 0xDA, 0x03, 0x00, 0xFF, 0xEA, 0x07, 11, 24, 19, 30, 5, 6,
        ])
        #expect(full.value == 98.6)
        #expect(full.unit == .fahrenheit)
        #expect(abs(full.celsius - 37.0) < 1e-9)
        #expect(full.timestamp == DateTime(year: 2026, month: 11, day: 24, hours: 19, minutes: 30, seconds: 5))
        #expect(full.type == 6)
        // NaN (no value at this resolution) is a value, not an error.
        #expect(try TemperatureMeasurement(bluetoothBytes: [0x00, 0x00, 0x00, 0x80, 0x00]).value.isNaN)
        #expect(
            throws: ValueDecodingError(
                typeName: "TemperatureMeasurement", offset: 5, reason: .tooFewBytes(needed: 2, available: 1))
        ) {
            _ = try TemperatureMeasurement(bluetoothBytes: [0x02, 0x6C, 0x01, 0x00, 0xFF, 0xEA])
        }
        #expect(
            throws: ValueDecodingError(
                typeName: "TemperatureMeasurement", offset: 5,
                reason: .invalidValue("2026-13-24 19:30:05 is not a date and time"))
        ) {
            _ = try TemperatureMeasurement(bluetoothBytes: [
                0x02, 0x6C, 0x01, 0x00, 0xFF, 0xEA, 0x07, 13, 24, 19, 30, 5,
            ])
        }
    }

    @Test func pnpIDAndDateTimeRoundTrip() throws {
        let pnp = PnPID(
            vendorIDSource: .bluetoothSIG, vendorID: 0x004C, productID: 0x0001, productVersion: 0x0142)
        #expect(pnp.bluetoothBytes == [0x01, 0x4C, 0x00, 0x01, 0x00, 0x42, 0x01])
        #expect(try PnPID(bluetoothBytes: pnp.bluetoothBytes) == pnp)
        #expect(try PnPID(bluetoothBytes: [9, 0, 0, 0, 0, 0, 0]).vendorIDSource == .reserved(9))
        let time = DateTime(year: 2026, month: 1, day: 2, hours: 3, minutes: 4, seconds: 5)
        #expect(try DateTime(bluetoothBytes: time.bluetoothBytes) == time)
        #expect(time.description == "2026-01-02 03:04:05")
    }

    /// Random bytes into every standard characteristic type: a value or a typed error naming the type,
    /// never a trap.
    @Test func randomBytesNeverTrapAnyStandardType() {
        var random = SeededRandomNumberGenerator(seed: 0x5354_4443_4841_5200)
        let decoders: [(String, @Sendable ([UInt8]) throws(ValueDecodingError) -> Void)] = [
            (
                "HeartRateMeasurement",
                { bytes throws(ValueDecodingError) in _ = try HeartRateMeasurement(bluetoothBytes: bytes) }
            ),
            (
                "BodySensorLocation",
                { bytes throws(ValueDecodingError) in _ = try BodySensorLocation(bluetoothBytes: bytes) }
            ),
            ("BatteryLevel", { bytes throws(ValueDecodingError) in _ = try BatteryLevel(bluetoothBytes: bytes) }),
            (
                "TemperatureMeasurement",
                { bytes throws(ValueDecodingError) in _ = try TemperatureMeasurement(bluetoothBytes: bytes) }
            ),
            ("DateTime", { bytes throws(ValueDecodingError) in _ = try DateTime(bluetoothBytes: bytes) }),
            ("PnPID", { bytes throws(ValueDecodingError) in _ = try PnPID(bluetoothBytes: bytes) }),
        ]
        for (name, decode) in decoders {
            var decoded = 0
            for _ in 0..<5_000 {
                let count = Int(random.next() % 24)
                let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                do {
                    try decode(bytes)
                    decoded += 1
                } catch {
                    #expect(error.typeName == name)
                }
            }
            // Random bytes are seldom a valid date and time; every other type decodes some.
            if name != "DateTime" { #expect(decoded > 0, "\(name) never decoded") }
        }
    }

    @Test func deviceInformationIsReadWhole() async throws {
        let world = SimulatedWorld(peripherals: [.init(.heartRateMonitor())])
        try await withFixture(CentralFixture(world: world)) { fixture in
            let peripheral = try await fixture.connect("C0:FF:EE:00:00:01")
            let information = try await peripheral.deviceInformation().values.first { _ in true }
            #expect(information?.manufacturerName == "Ripple Devices")
            #expect(information?.modelNumber == "RHM-1")
            #expect(information?.serialNumber == "RHM1-0000417")
            #expect(information?.hardwareRevision == "B2")
            #expect(information?.firmwareRevision == "1.4.2")
            #expect(information?.softwareRevision == "1.4.2")
            #expect(
                information?.pnpID
                    == PnPID(
                        vendorIDSource: .bluetoothSIG, vendorID: 0xFFFF, productID: 0x0001, productVersion: 0x0142))
            #expect(try await peripheral.readValue(.batteryLevel, as: BatteryLevel.self) == BatteryLevel(percent: 87))
            #expect(try await peripheral.readValue(.bodySensorLocation, as: BodySensorLocation.self) == .chest)
        }
    }
}
