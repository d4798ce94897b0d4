import Testing

@testable import RippleBlueZSimulator

#if canImport(Glibc)
import Glibc
#endif

@Suite struct WorldValueTests {
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
