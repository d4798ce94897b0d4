import Testing

@testable import RippleBlueZ

@Suite struct ByteReaderTests {
    private func error(_ body: () throws(ValueDecodingError) -> Void) -> ValueDecodingError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    @Test func readsIntegersInBothOrders() throws {
        var reader = ByteReader([0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0xFF, 0xFE, 0x80], typeName: "T")
        #expect(try reader.read(UInt16.self) == 0x0201)
        #expect(try reader.read(UInt16.self, endian: .big) == 0x0304)
        #expect(try reader.read(UInt32.self) == 0x0807_0605)
        #expect(reader.offset == 8)
        #expect(reader.remaining == 3)
        #expect(try reader.read(Int8.self) == -1)
        #expect(try reader.read(Int16.self) == Int16(bitPattern: 0x80FE))
        #expect(reader.isAtEnd)
        #expect(reader.remaining == 0)
    }

    @Test func readsTwentyFourBitIntegers() throws {
        var reader = ByteReader(
            [0x01, 0x02, 0x03, 0x01, 0x02, 0x03, 0xFF, 0xFF, 0xFF, 0x80, 0x00, 0x00], typeName: "T")
        #expect(try reader.readUInt24() == 0x03_0201)
        #expect(try reader.readUInt24(endian: .big) == 0x01_0203)
        #expect(try reader.readInt24() == -1)
        #expect(try reader.readInt24(endian: .big) == -0x80_0000)
        #expect(reader.isAtEnd)
    }

    @Test func readsFloatingPoint() throws {
        var reader = ByteReader(
            [0x00, 0x00, 0x80, 0x3F, 0x40, 0x49, 0x0F, 0xDB, 0x18, 0x2D, 0x44, 0x54, 0xFB, 0x21, 0x09, 0x40],
            typeName: "T"
        )
        #expect(try reader.readFloat32() == 1.0)
        #expect(try reader.readFloat32(endian: .big) == Float(bitPattern: 0x4049_0FDB))
        #expect(try reader.readFloat64() == Double.pi)
        #expect(reader.isAtEnd)
    }

    @Test func readsBytesAndStrings() throws {
        var reader = ByteReader([0xAA, 0xBB, 0x68, 0x69, 0x00, 0x00, 0x6F, 0x6B, 0x00, 0x6B], typeName: "T")
        #expect(try reader.readBytes(2) == [0xAA, 0xBB])
        #expect(try reader.readBytes(0) == [])
        #expect(try reader.readUTF8(count: 4) == "hi")
        #expect(reader.offset == 6)
        #expect(try reader.readUTF8Remaining() == "ok\u{0}k")
        #expect(reader.isAtEnd)
        #expect(try reader.readUTF8Remaining() == "")
        #expect(reader.readRemainingBytes() == [])
    }

    @Test func readRemainingBytesTakesTheRest() throws {
        var reader = ByteReader([1, 2, 3, 4], typeName: "T")
        try reader.skip(1)
        #expect(reader.readRemainingBytes() == [2, 3, 4])
        #expect(reader.offset == 4)
        #expect(reader.isAtEnd)
    }

    @Test func tooFewBytesNamesOffsetNeededAndAvailable() {
        var reader = ByteReader([0x01, 0x02, 0x03], typeName: "HeartRate")
        #expect(
            error { () throws(ValueDecodingError) in
                _ = try reader.read(UInt8.self)
                _ = try reader.read(UInt32.self)
            } == ValueDecodingError(typeName: "HeartRate", offset: 1, reason: .tooFewBytes(needed: 4, available: 2)))
        // A failed read consumes nothing.
        #expect(reader.offset == 1)
        #expect(
            error { () throws(ValueDecodingError) in _ = try reader.readUInt24() }
                == ValueDecodingError(typeName: "HeartRate", offset: 1, reason: .tooFewBytes(needed: 3, available: 2)))
        #expect(
            error { () throws(ValueDecodingError) in _ = try reader.readInt24() }
                == ValueDecodingError(typeName: "HeartRate", offset: 1, reason: .tooFewBytes(needed: 3, available: 2)))
        #expect(
            error { () throws(ValueDecodingError) in _ = try reader.readFloat32() }
                == ValueDecodingError(typeName: "HeartRate", offset: 1, reason: .tooFewBytes(needed: 4, available: 2)))
        #expect(
            error { () throws(ValueDecodingError) in _ = try reader.readFloat64() }
                == ValueDecodingError(typeName: "HeartRate", offset: 1, reason: .tooFewBytes(needed: 8, available: 2)))
        #expect(
            error { () throws(ValueDecodingError) in _ = try reader.readFloat11073() }
                == ValueDecodingError(typeName: "HeartRate", offset: 1, reason: .tooFewBytes(needed: 4, available: 2)))
        #expect(
            error { () throws(ValueDecodingError) in _ = try reader.readBytes(3) }
                == ValueDecodingError(typeName: "HeartRate", offset: 1, reason: .tooFewBytes(needed: 3, available: 2)))
        #expect(
            error { () throws(ValueDecodingError) in _ = try reader.readUTF8(count: 5) }
                == ValueDecodingError(typeName: "HeartRate", offset: 1, reason: .tooFewBytes(needed: 5, available: 2)))
        #expect(
            error { () throws(ValueDecodingError) in try reader.skip(Int.max) }
                == ValueDecodingError(
                    typeName: "HeartRate", offset: 1, reason: .tooFewBytes(needed: Int.max, available: 2)))
        #expect(error { () throws(ValueDecodingError) in _ = try reader.readSFloat() } == nil)
        #expect(
            error { () throws(ValueDecodingError) in _ = try reader.readSFloat() }
                == ValueDecodingError(typeName: "HeartRate", offset: 3, reason: .tooFewBytes(needed: 2, available: 0)))
        #expect(
            error { () throws(ValueDecodingError) in _ = try reader.read(UInt8.self) }
                == ValueDecodingError(typeName: "HeartRate", offset: 3, reason: .tooFewBytes(needed: 1, available: 0)))
    }

    @Test func negativeCountsThrowInsteadOfTrapping() {
        var reader = ByteReader([0x01, 0x02], typeName: "T")
        let negative = ValueDecodingError(
            typeName: "T", offset: 0, reason: .invalidValue("a count of -1 bytes is negative"))
        #expect(error { () throws(ValueDecodingError) in _ = try reader.readBytes(-1) } == negative)
        #expect(error { () throws(ValueDecodingError) in _ = try reader.readUTF8(count: -1) } == negative)
        #expect(error { () throws(ValueDecodingError) in try reader.skip(-1) } == negative)
        #expect(
            error { () throws(ValueDecodingError) in try reader.skip(Int.min) }
                == ValueDecodingError(
                    typeName: "T", offset: 0, reason: .invalidValue("a count of \(Int.min) bytes is negative")
                )
        )
        #expect(reader.offset == 0)
    }

    @Test func invalidUTF8IsReportedAtTheStringsFirstByte() {
        var reader = ByteReader([0x41, 0x42, 0xC3, 0x28, 0x43], typeName: "Name")
        #expect(
            error { () throws(ValueDecodingError) in
                try reader.skip(1)
                _ = try reader.readUTF8(count: 3)
            } == ValueDecodingError(typeName: "Name", offset: 1, reason: .invalidUTF8))
        var rest = ByteReader([0x41, 0xFF], typeName: "Name")
        #expect(
            error { () throws(ValueDecodingError) in
                try rest.skip(1)
                _ = try rest.readUTF8Remaining()
            } == ValueDecodingError(typeName: "Name", offset: 1, reason: .invalidUTF8))
    }

    @Test func expectEnd() throws {
        var reader = ByteReader([0x01, 0x02, 0x03], typeName: "Level")
        _ = try reader.read(UInt8.self)
        #expect(
            error { () throws(ValueDecodingError) in try reader.expectEnd() }
                == ValueDecodingError(typeName: "Level", offset: 1, reason: .unexpectedLength(expected: 1, found: 3)))
        try reader.skip(2)
        try reader.expectEnd()
        try ByteReader([], typeName: "Empty").expectEnd()
    }

    @Test func errorHelperUsesTheCurrentOffsetUnlessGivenOne() throws {
        var reader = ByteReader([0x01, 0x02], typeName: "Op")
        try reader.skip(1)
        #expect(
            reader.error(.unsupportedFormat("opcode 1"))
                == ValueDecodingError(typeName: "Op", offset: 1, reason: .unsupportedFormat("opcode 1")))
        #expect(
            reader.error(.invalidValue("x"), at: 0)
                == ValueDecodingError(typeName: "Op", offset: 0, reason: .invalidValue("x")))
    }
}
