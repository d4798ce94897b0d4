extension Bool: Readable, Writable {
    /// Decodes a Boolean from exactly one byte: 0 is false, 1 is true.
    ///
    /// - Parameter bytes: the characteristic's (or descriptor's) value.
    /// - Throws: ``ValueDecodingError/Reason/tooFewBytes(needed:available:)`` when there is no byte,
    ///   ``ValueDecodingError/Reason/unexpectedLength(expected:found:)`` when there is more than one,
    ///   ``ValueDecodingError/Reason/invalidValue(_:)`` when the byte is neither 0 nor 1.
    public init(bluetoothBytes bytes: [UInt8]) throws(ValueDecodingError) {
        var reader = ByteReader(bytes, typeName: "Bool")
        let byte = try reader.read(UInt8.self)
        try reader.expectEnd()
        switch byte {
        case 0: self = false
        case 1: self = true
        default: throw reader.error(.invalidValue("\(byte) is neither 0 (false) nor 1 (true)"), at: 0)
        }
    }

    /// One byte: 1 for true, 0 for false.
    public var bluetoothBytes: [UInt8] { [self ? 1 : 0] }
}
