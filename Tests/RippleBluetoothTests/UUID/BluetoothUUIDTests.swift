import Testing

@testable import RippleBluetooth

@Suite struct BluetoothUUIDTests {
    static let heartRateForms = [
        "180d", "180D", "0x180D", "0x180d", "0X180D", "0000180d", "0x0000180D",
        "0000180d-0000-1000-8000-00805f9b34fb", "0000180D-0000-1000-8000-00805F9B34FB",
        "0000180d00001000800000805f9b34fb",
    ]

    @Test(arguments: heartRateForms)
    func everyFormOfHeartRateParsesToTheSameUUID(_ form: String) throws {
        let uuid = try BluetoothUUID(form)
        #expect(uuid == BluetoothUUID(UInt16(0x180D)))
        #expect(uuid == BluetoothUUID.heartRate)
        #expect(uuid.uuidString == "0000180d-0000-1000-8000-00805f9b34fb")
        #expect(uuid.description == "180D")
        #expect(uuid.shortForm == 0x180D)
        #expect(uuid.value32 == 0x0000_180D)
        #expect(uuid.name == "Heart Rate")
        #expect(BluetoothUUID(uuidString: form) == uuid)
    }

    @Test func literalSixteenAndThirtyTwoBitInitialisersAgree() {
        let literal: BluetoothUUID = 0x2A37
        #expect(literal == BluetoothUUID(UInt16(0x2A37)))
        #expect(literal == BluetoothUUID(UInt32(0x2A37)))
        #expect(literal == BluetoothUUID(high: 0x0000_2A37_0000_1000, low: 0x8000_0080_5F9B_34FB))
    }

    @Test func thirtyTwoBitForm() throws {
        let uuid = BluetoothUUID(UInt32(0x1234_5678))
        #expect(uuid.uuidString == "12345678-0000-1000-8000-00805f9b34fb")
        #expect(uuid.description == "12345678")
        #expect(uuid.shortForm == nil)
        #expect(uuid.value32 == 0x1234_5678)
        #expect(uuid.name == nil)
        #expect(BluetoothUUID("12345678") == uuid)
        #expect(BluetoothUUID("0x12345678") == uuid)
        #expect(BluetoothUUID("12345678-0000-1000-8000-00805F9B34FB") == uuid)
    }

    @Test func aThirtyTwoBitNumberBelow0x10000IsASixteenBitForm() {
        let uuid = BluetoothUUID(UInt32(0x0000_FFFF))
        #expect(uuid == BluetoothUUID(UInt16(0xFFFF)))
        #expect(uuid.shortForm == 0xFFFF)
        #expect(uuid.description == "FFFF")
        #expect(BluetoothUUID(UInt32(0x0001_0000)).shortForm == nil)
        #expect(BluetoothUUID(UInt32(0x0001_0000)).description == "00010000")
    }

    @Test func fullFormOffTheBaseUUID() throws {
        let string = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
        let uuid = try BluetoothUUID(string)
        #expect(uuid.uuidString == string)
        #expect(uuid.description == "6E400001-B5A3-F393-E0A9-E50E24DCCA9E")
        #expect(uuid.shortForm == nil)
        #expect(uuid.value32 == nil)
        #expect(uuid.name == nil)
        #expect(BluetoothUUID("6E400001B5A3F393E0A9E50E24DCCA9E") == uuid)
        #expect(uuid == BluetoothUUID(high: 0x6E40_0001_B5A3_F393, low: 0xE0A9_E50E_24DC_CA9E))
    }

    @Test func baseUUIDItselfIsTheNumberZero() throws {
        let base = BluetoothUUID("00000000-0000-1000-8000-00805F9B34FB")
        #expect(base == BluetoothUUID(UInt16(0)))
        #expect(base.shortForm == 0)
        #expect(base.description == "0000")
    }

    @Test func nearlyTheBaseUUIDIsNotAShortForm() throws {
        let uuid = BluetoothUUID("0000180d-0000-1000-8000-00805f9b34fc")
        #expect(uuid != BluetoothUUID.heartRate)
        #expect(uuid.shortForm == nil)
        #expect(uuid.value32 == nil)
        #expect(uuid.description == "0000180D-0000-1000-8000-00805F9B34FC")
        let otherHigh = BluetoothUUID("0000180d-0001-1000-8000-00805f9b34fb")
        #expect(otherHigh.shortForm == nil)
        #expect(otherHigh.value32 == nil)
    }

    @Test func bytesAreBigEndian() throws {
        #expect(
            BluetoothUUID.heartRate.bytes == [
                0x00, 0x00, 0x18, 0x0D, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0x80, 0x5F, 0x9B, 0x34, 0xFB,
            ])
        let custom = BluetoothUUID("6e400001-b5a3-f393-e0a9-e50e24dcca9e")
        #expect(
            custom.bytes == [
                0x6E, 0x40, 0x00, 0x01, 0xB5, 0xA3, 0xF3, 0x93, 0xE0, 0xA9, 0xE5, 0x0E, 0x24, 0xDC, 0xCA, 0x9E,
            ])
    }

    @Test func initFromBytes() throws {
        #expect(BluetoothUUID(bytes: [0x18, 0x0D]) == .heartRate)
        #expect(BluetoothUUID(bytes: [0x00, 0x00, 0x18, 0x0D]) == .heartRate)
        #expect(BluetoothUUID(bytes: [0x12, 0x34, 0x56, 0x78]) == BluetoothUUID(UInt32(0x1234_5678)))
        let custom = BluetoothUUID("6e400001-b5a3-f393-e0a9-e50e24dcca9e")
        #expect(BluetoothUUID(bytes: custom.bytes) == custom)
        #expect(BluetoothUUID(bytes: BluetoothUUID.heartRate.bytes) == .heartRate)
    }

    @Test(arguments: [0, 1, 3, 5, 8, 15, 17, 32])
    func initFromBytesRejectsOtherLengths(_ count: Int) {
        #expect(BluetoothUUID(bytes: [UInt8](repeating: 0xAB, count: count)) == nil)
    }

    @Test func ordersByTheOneHundredTwentyEightBitValue() throws {
        let low: BluetoothUUID = 0x1800
        let high: BluetoothUUID = 0x2A37
        let beyond = BluetoothUUID("ffffffff-0000-0000-0000-000000000000")
        let lowHalfOnly = BluetoothUUID("00000000-0000-0000-ffff-ffffffffffff")
        #expect(low < high)
        #expect(!(high < low))
        #expect(high < beyond)
        #expect(lowHalfOnly < low)
        #expect([beyond, high, lowHalfOnly, low].sorted() == [lowHalfOnly, low, high, beyond])
    }

    @Test func hashableAcrossForms() throws {
        let set: Set<BluetoothUUID> = [0x180D, BluetoothUUID("0000180D-0000-1000-8000-00805F9B34FB"), .heartRate]
        #expect(set.count == 1)
    }
}
