import Testing

@testable import RippleBlueZ

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

@Suite struct ReadableWritableTests {
    private func decodingError<T: Readable>(_ type: T.Type, _ bytes: [UInt8]) -> ValueDecodingError? {
        do {
            _ = try T(bluetoothBytes: bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test func integersAreLittleEndian() throws {
        #expect(try UInt8(bluetoothBytes: [0xAB]) == 0xAB)
        #expect(try UInt16(bluetoothBytes: [0x34, 0x12]) == 0x1234)
        #expect(try UInt32(bluetoothBytes: [0x78, 0x56, 0x34, 0x12]) == 0x1234_5678)
        #expect(try UInt64(bluetoothBytes: [8, 7, 6, 5, 4, 3, 2, 1]) == 0x0102_0304_0506_0708)
        #expect(try Int8(bluetoothBytes: [0x80]) == -128)
        #expect(try Int16(bluetoothBytes: [0xFE, 0xFF]) == -2)
        #expect(try Int32(bluetoothBytes: [0x00, 0x00, 0x00, 0x80]) == .min)
        #expect(try Int64(bluetoothBytes: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]) == .max)

        #expect(UInt16(0x1234).bluetoothBytes == [0x34, 0x12])
        #expect(Int32(-2).bluetoothBytes == [0xFE, 0xFF, 0xFF, 0xFF])
        #expect(UInt64(1).bluetoothBytes == [1, 0, 0, 0, 0, 0, 0, 0])
        #expect(Int8(-1).bluetoothBytes == [0xFF])
    }

    @Test func integersNeedTheirExactSize() {
        #expect(
            decodingError(UInt8.self, [])
                == ValueDecodingError(
                    typeName: "UInt8", offset: 0, reason: .tooFewBytes(needed: 1, available: 0)))
        #expect(
            decodingError(UInt16.self, [0x01])
                == ValueDecodingError(
                    typeName: "UInt16", offset: 0, reason: .tooFewBytes(needed: 2, available: 1)))
        #expect(
            decodingError(UInt16.self, [0x01, 0x02, 0x03])
                == ValueDecodingError(
                    typeName: "UInt16", offset: 2, reason: .unexpectedLength(expected: 2, found: 3)))
        #expect(
            decodingError(Int32.self, [1, 2, 3])
                == ValueDecodingError(
                    typeName: "Int32", offset: 0, reason: .tooFewBytes(needed: 4, available: 3)))
        #expect(
            decodingError(Int64.self, [UInt8](repeating: 0, count: 9))
                == ValueDecodingError(
                    typeName: "Int64", offset: 8, reason: .unexpectedLength(expected: 8, found: 9)))
        #expect(
            decodingError(Int8.self, [1, 2])
                == ValueDecodingError(
                    typeName: "Int8", offset: 1, reason: .unexpectedLength(expected: 1, found: 2)))
    }

    @Test func bool() throws {
        #expect(try Bool(bluetoothBytes: [0]) == false)
        #expect(try Bool(bluetoothBytes: [1]) == true)
        #expect(true.bluetoothBytes == [1])
        #expect(false.bluetoothBytes == [0])
        #expect(
            decodingError(Bool.self, [2])
                == ValueDecodingError(
                    typeName: "Bool", offset: 0, reason: .invalidValue("2 is neither 0 (false) nor 1 (true)")))
        #expect(
            decodingError(Bool.self, [])
                == ValueDecodingError(
                    typeName: "Bool", offset: 0, reason: .tooFewBytes(needed: 1, available: 0)))
        #expect(
            decodingError(Bool.self, [1, 0])
                == ValueDecodingError(
                    typeName: "Bool", offset: 1, reason: .unexpectedLength(expected: 1, found: 2)))
    }

    @Test func floatingPoint() throws {
        #expect(try Float(bluetoothBytes: [0x00, 0x00, 0x80, 0x3F]) == 1.0)
        #expect(try Double(bluetoothBytes: [0, 0, 0, 0, 0, 0, 0x00, 0xC0]) == -2.0)
        #expect(Float(1.0).bluetoothBytes == [0x00, 0x00, 0x80, 0x3F])
        #expect(Double(-2.0).bluetoothBytes == [0, 0, 0, 0, 0, 0, 0x00, 0xC0])
        #expect(try Float(bluetoothBytes: Float(36.4).bluetoothBytes) == 36.4)
        #expect(
            decodingError(Float.self, [0, 0, 0])
                == ValueDecodingError(
                    typeName: "Float", offset: 0, reason: .tooFewBytes(needed: 4, available: 3)))
        #expect(
            decodingError(Float.self, [0, 0, 0, 0, 0])
                == ValueDecodingError(
                    typeName: "Float", offset: 4, reason: .unexpectedLength(expected: 4, found: 5)))
        #expect(
            decodingError(Double.self, [0, 0, 0, 0])
                == ValueDecodingError(
                    typeName: "Double", offset: 0, reason: .tooFewBytes(needed: 8, available: 4)))
        #expect(
            decodingError(Double.self, [UInt8](repeating: 0, count: 10))
                == ValueDecodingError(
                    typeName: "Double", offset: 8, reason: .unexpectedLength(expected: 8, found: 10)))
    }

    @Test func string() throws {
        #expect(try String(bluetoothBytes: Array("Polar H10".utf8)) == "Polar H10")
        #expect(try String(bluetoothBytes: [0x48, 0x52, 0x00, 0x00]) == "HR")
        #expect(try String(bluetoothBytes: [0x00, 0x48, 0x00]) == "\u{0}H")
        #expect(try String(bluetoothBytes: []) == "")
        #expect(try String(bluetoothBytes: [0, 0, 0]) == "")
        #expect(try String(bluetoothBytes: [0xE2, 0x9C, 0x93]) == "✓")
        #expect("✓".bluetoothBytes == [0xE2, 0x9C, 0x93])
        #expect(
            decodingError(String.self, [0x41, 0xFF])
                == ValueDecodingError(
                    typeName: "String", offset: 0, reason: .invalidUTF8))
        #expect(
            decodingError(String.self, [0xE2, 0x9C])
                == ValueDecodingError(
                    typeName: "String", offset: 0, reason: .invalidUTF8))
    }

    @Test func bytesAsTheyAre() throws {
        #expect(try [UInt8](bluetoothBytes: [0, 0xFF, 0]) == [0, 0xFF, 0])
        #expect(try [UInt8](bluetoothBytes: []) == [])
        #expect([UInt8]([1, 2]).bluetoothBytes == [1, 2])
        #expect(try Data(bluetoothBytes: [0, 0xFF, 0]) == Data([0, 0xFF, 0]))
        #expect(Data([3, 4, 0]).bluetoothBytes == [3, 4, 0])
    }
}
