import Testing

@testable import RippleBlueZ

@Suite struct ByteWriterTests {
    @Test func integersInBothOrders() {
        var writer = ByteWriter()
        writer.append(UInt32(0x0102_0304))
        writer.append(UInt32(0x0102_0304), endian: .big)
        writer.append(Int16(-2))
        writer.append(Int16(-2), endian: .big)
        writer.append(UInt8(0xAB))
        writer.append(Int64(-1))
        #expect(
            writer.bytes == [
                0x04, 0x03, 0x02, 0x01, 0x01, 0x02, 0x03, 0x04, 0xFE, 0xFF, 0xFF, 0xFE, 0xAB,
                0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
            ])
    }

    @Test func twentyFourBitIntegers() {
        var writer = ByteWriter()
        writer.appendUInt24(0x12_3456)
        writer.appendUInt24(0x12_3456, endian: .big)
        writer.appendInt24(-2)
        writer.appendInt24(-2, endian: .big)
        writer.appendUInt24(0x01FF_FFFF)  // higher bits are dropped
        #expect(
            writer.bytes == [0x56, 0x34, 0x12, 0x12, 0x34, 0x56, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE, 0xFF, 0xFF, 0xFF])
    }

    @Test func floatingPoint() {
        var writer = ByteWriter()
        writer.appendFloat32(1.0)
        writer.appendFloat32(1.0, endian: .big)
        writer.appendFloat64(-2.0)
        #expect(writer.bytes == [0x00, 0x00, 0x80, 0x3F, 0x3F, 0x80, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0x00, 0xC0])
    }

    @Test func bytesAndStrings() {
        var writer = ByteWriter()
        #expect(writer.bytes == [])
        writer.append(bytes: [0x01, 0x02])
        writer.append(bytes: [])
        writer.append(utf8: "hé")
        writer.append(bytes: (5...6).map(UInt8.init))
        #expect(writer.bytes == [0x01, 0x02, 0x68, 0xC3, 0xA9, 0x05, 0x06])
    }
}
