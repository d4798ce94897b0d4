import Testing

@testable import RippleBlueZ

@Suite struct ValueDecodingErrorTests {
    @Test func descriptions() {
        #expect(
            ValueDecodingError(typeName: "HeartRate", offset: 1, reason: .tooFewBytes(needed: 3, available: 1))
                .description
                == "HeartRate: 3 bytes needed at offset 1, 1 available"
        )
        #expect(
            ValueDecodingError(typeName: "UInt8", offset: 0, reason: .tooFewBytes(needed: 1, available: 0)).description
                == "UInt8: 1 byte needed at offset 0, 0 available"
        )
        #expect(
            ValueDecodingError(typeName: "UInt16", offset: 2, reason: .unexpectedLength(expected: 2, found: 3))
                .description
                == "UInt16: 2 bytes expected, 3 found (extra bytes from offset 2)"
        )
        #expect(
            ValueDecodingError(typeName: "String", offset: 4, reason: .invalidUTF8).description
                == "String: invalid UTF-8 at offset 4"
        )
        #expect(
            ValueDecodingError(
                typeName: "Bool", offset: 0, reason: .invalidValue("2 is neither 0 (false) nor 1 (true)")
            )
            .description == "Bool: invalid value at offset 0: 2 is neither 0 (false) nor 1 (true)"
        )
        #expect(
            ValueDecodingError(typeName: "Measurement", offset: 0, reason: .unsupportedFormat("flags bit 7"))
                .description
                == "Measurement: unsupported format at offset 0: flags bit 7"
        )
    }

    @Test func equalityComparesEveryField() {
        let error = ValueDecodingError(typeName: "A", offset: 1, reason: .invalidUTF8)
        #expect(error == ValueDecodingError(typeName: "A", offset: 1, reason: .invalidUTF8))
        #expect(error != ValueDecodingError(typeName: "B", offset: 1, reason: .invalidUTF8))
        #expect(error != ValueDecodingError(typeName: "A", offset: 2, reason: .invalidUTF8))
        #expect(error != ValueDecodingError(typeName: "A", offset: 1, reason: .invalidValue("")))
    }
}
