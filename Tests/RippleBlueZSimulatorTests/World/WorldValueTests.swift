import Testing

@testable import RippleBlueZSimulator

#if canImport(Glibc)
import Glibc
#endif

@Suite struct WorldValueTests {
    @Test func shortFormsExpandOnTheBaseUUID() {
        #expect(AttributeUUID(0x180D).uuidString == "0000180d-0000-1000-8000-00805f9b34fb")
        #expect(AttributeUUID("0x2A37").uuidString == "00002a37-0000-1000-8000-00805f9b34fb")
        #expect(AttributeUUID("2a37") == AttributeUUID(0x2A37))
        #expect(AttributeUUID("0000FEED").shortValue == 0xFEED)
    }

    @Test func fullFormsAreLowerCased() {
        let uuid = AttributeUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")
        #expect(uuid.isValid)
        #expect(uuid.uuidString == "6e400001-b5a3-f393-e0a9-e50e24dcca9e")
        #expect(uuid.shortValue == nil)
    }

    @Test func malformedTextIsInvalidNotATrap() {
        for text in ["", "18", "xyz1", "6E400001-B5A3-F393-E0A9", "6E400001-B5A3-F393-E0A9-E50E24DCCA9G"] {
            #expect(!AttributeUUID(text).isValid, "\(text)")
        }
        #expect(!AttributeUUID(integerLiteral: -1).isValid)
    }

    @Test func addressesAreUpperCasedAndValidated() {
        #expect(DeviceAddress("c0:ff:ee:00:00:01").text == "C0:FF:EE:00:00:01")
        #expect(DeviceAddress("C0:FF:EE:00:00:01").pathComponent == "dev_C0_FF_EE_00_00_01")
        #expect(!DeviceAddress("C0:FF:EE:00:00").isValid)
        #expect(!DeviceAddress("C0:FF:EE:00:00:0G").isValid)
    }

    @Test func attErrorsMapAsBluetoothdMapsThem() {
        #expect(BlueZError.attError(0x02) == .notPermitted("Read not permitted"))
        #expect(BlueZError.attError(0x0D) == .invalidArguments("Invalid Length"))
        #expect(BlueZError.attError(0x80) == .failed("Operation failed with ATT error: 0x80"))
        #expect(BlueZError.attError(0x0E) == .failed("Operation failed with ATT error: 0x0e"))
    }

    @Test func numberedPayloadsCarryTheSequenceLittleEndian() {
        let source = NotificationSource(count: 3, payload: .numbered(size: 6))
        #expect(source.payload(sequence: 0x0102_0304) == [4, 3, 2, 1, 0xA5, 0xA5])
        #expect(NotificationSource(payload: .sequenceByte(size: 3)).payload(sequence: 258) == [2, 2, 2])
        #expect(NotificationSource(payload: .cycle([[1], [2]])).payload(sequence: 3) == [2])
        #expect(NotificationSource(payload: .numbered(size: 3)).problem != nil)
        #expect(NotificationSource(rate: 0).problem != nil)
    }

    @Test func timestampedPayloadsCarryTheSequenceAndTheMonotonicSendTime() {
        var before = timespec()
        clock_gettime(CLOCK_MONOTONIC, &before)
        let bytes = NotificationSource(payload: .timestamped(size: 16)).payload(sequence: 0x0102_0304)
        var after = timespec()
        clock_gettime(CLOCK_MONOTONIC, &after)
        #expect(bytes.count == 16)
        #expect(Array(bytes[0..<4]) == [4, 3, 2, 1])
        #expect(Array(bytes[12...]) == [0xA5, 0xA5, 0xA5, 0xA5])
        let stamp = bytes[4..<12].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let nanoseconds = { (time: timespec) in UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec) }
        #expect(stamp >= nanoseconds(before) && stamp <= nanoseconds(after))
        #expect(NotificationSource(payload: .timestamped(size: 11)).problem != nil)
        #expect(NotificationSource(payload: .timestamped(size: 12)).problem == nil)
    }
}
