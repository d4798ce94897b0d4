import Testing

@testable import RippleBlueZ

@Suite struct IEEE11073FloatTests {
    private func sfloat(_ raw: UInt16) throws -> Double {
        var reader = ByteReader([UInt8(raw & 0xFF), UInt8(raw >> 8)], typeName: "SFLOAT")
        let value = try reader.readSFloat()
        #expect(reader.isAtEnd)
        return value
    }

    private func float(_ raw: UInt32) throws -> Double {
        var writer = ByteWriter()
        writer.append(raw)
        var reader = ByteReader(writer.bytes, typeName: "FLOAT")
        let value = try reader.readFloat11073()
        #expect(reader.isAtEnd)
        return value
    }

    @Test func sfloatValues() throws {
        #expect(try sfloat(0xF06E) == 11.0)  // exponent −1, mantissa 110
        #expect(try sfloat(0x0072) == 114.0)  // exponent 0, mantissa 114
        #expect(try sfloat(0x2001) == 100.0)  // exponent 2, mantissa 1
        #expect(try sfloat(0xFFFF) == -0.1)  // exponent −1, mantissa −1
        #expect(try sfloat(0xE16C) == 3.64)  // exponent −2, mantissa 364
        #expect(try sfloat(0x0000) == 0.0)
        #expect(try sfloat(0x07FD) == 2045.0)  // the largest ordinary mantissa
        #expect(try sfloat(0x0803) == -2045.0)  // the smallest ordinary mantissa
        #expect(try sfloat(0x8001) == 1e-8)  // exponent −8
        #expect(try sfloat(0x7001) == 1e7)  // exponent 7
        #expect(try sfloat(0x17FF) == 20470.0)  // mantissa 0x7FF is NaN only with exponent 0
        #expect(try sfloat(0x1800) == -20480.0)  // mantissa −2048, exponent 1
    }

    @Test func sfloatBytesAreLittleEndian() throws {
        var reader = ByteReader([0x6E, 0xF0], typeName: "SFLOAT")
        #expect(try reader.readSFloat() == 11.0)
    }

    @Test func sfloatSpecialValues() throws {
        #expect(try sfloat(0x07FF).isNaN)  // NaN
        #expect(try sfloat(0x0800).isNaN)  // NRes
        #expect(try sfloat(0x0801).isNaN)  // reserved
        #expect(try sfloat(0x07FE) == .infinity)
        #expect(try sfloat(0x0802) == -.infinity)
    }

    @Test func floatValues() throws {
        var reader = ByteReader([0x6C, 0x01, 0x00, 0xFF], typeName: "FLOAT")  // 36.4 °C: exponent −1, mantissa 364
        #expect(try reader.readFloat11073() == 36.4)
        #expect(try float(0xFF00_016C) == 36.4)
        #expect(try float(0xFFFF_FE94) == -36.4)  // mantissa −364
        #expect(try float(0x0200_0005) == 500.0)  // exponent 2, mantissa 5
        #expect(try float(0x0000_0000) == 0.0)
        #expect(try float(0x007F_FFFD) == 8_388_605.0)
        #expect(try float(0x0080_0003) == -8_388_605.0)
        #expect(try float(0xFD00_0001) == 0.001)  // exponent −3
        #expect(try float(0x017F_FFFF) == 83_886_070.0)  // mantissa 0x7FFFFF is NaN only with exponent 0
    }

    @Test func floatExtremeExponentsStayFinite() throws {
        let huge = try float(0x7F00_0001)  // 1 × 10¹²⁷
        let tiny = try float(0x8000_0001)  // 1 × 10⁻¹²⁸
        #expect(huge.isFinite)
        #expect(tiny > 0)
        #expect(abs(huge / 1e127 - 1) < 1e-13)
        #expect(abs(tiny / 1e-128 - 1) < 1e-13)
    }

    @Test func floatSpecialValues() throws {
        #expect(try float(0x007F_FFFF).isNaN)  // NaN
        #expect(try float(0x0080_0000).isNaN)  // NRes
        #expect(try float(0x0080_0001).isNaN)  // reserved
        #expect(try float(0x007F_FFFE) == .infinity)
        #expect(try float(0x0080_0002) == -.infinity)
    }

    @Test func tooFewBytes() {
        var reader = ByteReader([0x01], typeName: "Thermometer")
        #expect(
            throws: ValueDecodingError(
                typeName: "Thermometer", offset: 0, reason: .tooFewBytes(needed: 2, available: 1))
        ) {
            try reader.readSFloat()
        }
        #expect(
            throws: ValueDecodingError(
                typeName: "Thermometer", offset: 0, reason: .tooFewBytes(needed: 4, available: 1))
        ) {
            try reader.readFloat11073()
        }
    }
}
