import Testing

@testable import RippleBlueZ

/// What a ``ByteWriter`` writes, a ``ByteReader`` reads back unchanged, for every width and both orders.
@Suite struct ByteRoundTripTests {
    static let endians: [Endianness] = [.little, .big]

    private func roundTrip<T: FixedWidthInteger>(_ values: [T], endian: Endianness) throws {
        var writer = ByteWriter()
        for value in values { writer.append(value, endian: endian) }
        #expect(writer.bytes.count == values.count * T.bitWidth / 8)
        var reader = ByteReader(writer.bytes, typeName: "\(T.self)")
        for value in values { #expect(try reader.read(T.self, endian: endian) == value) }
        try reader.expectEnd()
    }

    @Test(arguments: endians)
    func integersOfEveryWidth(_ endian: Endianness) throws {
        try roundTrip([0, 1, 0x7F, 0x80, 0xFF] as [UInt8], endian: endian)
        try roundTrip([0, 1, -1, .min, .max, -100] as [Int8], endian: endian)
        try roundTrip([0, 0x0102, 0x8000, .max] as [UInt16], endian: endian)
        try roundTrip([0, -1, .min, .max, -12345] as [Int16], endian: endian)
        try roundTrip([0, 0x0102_0304, 0x8000_0000, .max] as [UInt32], endian: endian)
        try roundTrip([0, -1, .min, .max, -123_456_789] as [Int32], endian: endian)
        try roundTrip([0, 0x0102_0304_0506_0708, 0x8000_0000_0000_0000, .max] as [UInt64], endian: endian)
        try roundTrip([0, -1, .min, .max, -1_234_567_890_123] as [Int64], endian: endian)
        try roundTrip([0, -1, .min, .max] as [Int], endian: endian)
    }

    @Test(arguments: endians)
    func twentyFourBitIntegers(_ endian: Endianness) throws {
        let unsigned: [UInt32] = [0, 1, 0x7F_FFFF, 0x80_0000, 0xFF_FFFF, 0x12_3456]
        let signed: [Int32] = [0, 1, -1, -0x80_0000, 0x7F_FFFF, -123_456]
        var writer = ByteWriter()
        for value in unsigned { writer.appendUInt24(value, endian: endian) }
        for value in signed { writer.appendInt24(value, endian: endian) }
        #expect(writer.bytes.count == 3 * (unsigned.count + signed.count))
        var reader = ByteReader(writer.bytes, typeName: "24-bit")
        for value in unsigned { #expect(try reader.readUInt24(endian: endian) == value) }
        for value in signed { #expect(try reader.readInt24(endian: endian) == value) }
        try reader.expectEnd()
    }

    @Test(arguments: endians)
    func floatingPoint(_ endian: Endianness) throws {
        let floats: [Float] = [
            0, -0.0, 1, -36.4, .pi, .greatestFiniteMagnitude, .leastNonzeroMagnitude, .infinity, -.infinity,
        ]
        let doubles: [Double] = [
            0, -0.0, 1, -36.4, .pi, .greatestFiniteMagnitude, .leastNonzeroMagnitude, .infinity, -.infinity,
        ]
        var writer = ByteWriter()
        for value in floats { writer.appendFloat32(value, endian: endian) }
        for value in doubles { writer.appendFloat64(value, endian: endian) }
        writer.appendFloat32(Float(nan: 0x1234, signaling: false), endian: endian)
        writer.appendFloat64(Double(nan: 0x1234, signaling: false), endian: endian)
        var reader = ByteReader(writer.bytes, typeName: "floats")
        for value in floats { #expect(try reader.readFloat32(endian: endian).bitPattern == value.bitPattern) }
        for value in doubles { #expect(try reader.readFloat64(endian: endian).bitPattern == value.bitPattern) }
        #expect(try reader.readFloat32(endian: endian).bitPattern == Float(nan: 0x1234, signaling: false).bitPattern)
        #expect(try reader.readFloat64(endian: endian).bitPattern == Double(nan: 0x1234, signaling: false).bitPattern)
        try reader.expectEnd()
    }

    @Test func bytesAndStrings() throws {
        var writer = ByteWriter()
        writer.append(bytes: [0xDE, 0xAD])
        writer.append(utf8: "Ripple ✓")
        var reader = ByteReader(writer.bytes, typeName: "mixed")
        #expect(try reader.readBytes(2) == [0xDE, 0xAD])
        #expect(try reader.readUTF8Remaining() == "Ripple ✓")
    }
}
