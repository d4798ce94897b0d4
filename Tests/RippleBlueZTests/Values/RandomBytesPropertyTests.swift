import RippleTestKit
import Testing

@testable import RippleBlueZ

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Random bytes never trap a decoder: every ``Readable`` conformance and every ``ByteReader`` read either
/// decodes or throws the ``ValueDecodingError`` its rules predict.
@Suite struct RandomBytesPropertyTests {
    static let iterations = 10_000

    /// 10,000 arrays of 0…32 random bytes, the same on every run.
    static func randomArrays(seed: UInt64) -> [[UInt8]] {
        var generator = SeededRandomNumberGenerator(seed: seed)
        return (0..<iterations).map { _ in
            let count = Int.random(in: 0...32, using: &generator)
            return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        }
    }

    /// The outcome the rules predict for an exact-size value of `size` bytes given `bytes`.
    private func checkExactSize<T: Readable & Writable>(_ type: T.Type, size: Int, _ bytes: [UInt8]) {
        do {
            let value = try T(bluetoothBytes: bytes)
            #expect(bytes.count == size)
            #expect(value.bluetoothBytes == bytes)
        } catch {
            if bytes.count < size {
                #expect(
                    error
                        == ValueDecodingError(
                            typeName: "\(T.self)", offset: 0, reason: .tooFewBytes(needed: size, available: bytes.count)
                        ))
            } else {
                #expect(
                    error
                        == ValueDecodingError(
                            typeName: "\(T.self)", offset: size,
                            reason: .unexpectedLength(expected: size, found: bytes.count)))
            }
        }
    }

    @Test func everyReadableConformanceDecodesOrThrows() throws {
        var decoded = 0
        var thrown = 0
        func tally<T>(_ body: () throws(ValueDecodingError) -> T) {
            do {
                _ = try body()
                decoded += 1
            } catch {
                thrown += 1
            }
        }
        for bytes in Self.randomArrays(seed: 0x5EED_B1E2) {
            checkExactSize(UInt8.self, size: 1, bytes)
            checkExactSize(UInt16.self, size: 2, bytes)
            checkExactSize(UInt32.self, size: 4, bytes)
            checkExactSize(UInt64.self, size: 8, bytes)
            checkExactSize(Int8.self, size: 1, bytes)
            checkExactSize(Int16.self, size: 2, bytes)
            checkExactSize(Int32.self, size: 4, bytes)
            checkExactSize(Int64.self, size: 8, bytes)
            checkExactSize(Float.self, size: 4, bytes)
            checkExactSize(Double.self, size: 8, bytes)

            let isBool = bytes.count == 1 && bytes[0] <= 1
            #expect((try? Bool(bluetoothBytes: bytes)) == (isBool ? bytes[0] == 1 : nil))

            var trimmed = bytes[...]
            while trimmed.last == 0 { trimmed = trimmed.dropLast() }
            #expect((try? String(bluetoothBytes: bytes)) == String(validating: trimmed, as: UTF8.self))
            #expect(try [UInt8](bluetoothBytes: bytes) == bytes)
            #expect(try Data(bluetoothBytes: bytes) == Data(bytes))

            tally { () throws(ValueDecodingError) in try UInt8(bluetoothBytes: bytes) }
            tally { () throws(ValueDecodingError) in try Int64(bluetoothBytes: bytes) }
            tally { () throws(ValueDecodingError) in try Bool(bluetoothBytes: bytes) }
            tally { () throws(ValueDecodingError) in try String(bluetoothBytes: bytes) }
        }
        #expect(decoded + thrown == 4 * Self.iterations)
        #expect(decoded > 0)
        #expect(thrown > 0)
    }

    @Test func randomReadSequencesNeverTrap() {
        var generator = SeededRandomNumberGenerator(seed: 0xB1E2_5EED)
        for bytes in Self.randomArrays(seed: 0x0DDB_A115) {
            var reader = ByteReader(bytes, typeName: "Random")
            for _ in 0..<6 {
                let before = reader.offset
                let count = Int.random(in: -3...40, using: &generator)
                do {
                    switch Int.random(in: 0..<14, using: &generator) {
                    case 0: _ = try reader.read(UInt8.self)
                    case 1: _ = try reader.read(Int16.self, endian: .big)
                    case 2: _ = try reader.read(UInt32.self)
                    case 3: _ = try reader.read(Int64.self, endian: .big)
                    case 4: _ = try reader.readUInt24()
                    case 5: _ = try reader.readInt24(endian: .big)
                    case 6: _ = try reader.readFloat32()
                    case 7: _ = try reader.readFloat64(endian: .big)
                    case 8: _ = try reader.readSFloat()
                    case 9: _ = try reader.readFloat11073()
                    case 10: _ = try reader.readBytes(count)
                    case 11: _ = try reader.readUTF8(count: count)
                    case 12: try reader.skip(count)
                    default: _ = try reader.readUTF8Remaining()
                    }
                } catch {
                    // A failed read names the reader's type, happens where the reader stood and moves nothing.
                    #expect(error.typeName == "Random")
                    #expect(error.offset == before)
                    #expect(reader.offset == before)
                }
                #expect(reader.offset <= bytes.count)
                #expect(reader.remaining == bytes.count - reader.offset)
            }
        }
    }
}
