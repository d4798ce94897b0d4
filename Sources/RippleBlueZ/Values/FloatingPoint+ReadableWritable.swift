extension Float: Readable, Writable {
    /// Decodes an IEEE 754 single-precision number from exactly 4 little-endian bytes.
    ///
    /// - Parameter bytes: the 4 bytes.
    /// - Throws: ``ValueDecodingError/Reason/tooFewBytes(needed:available:)`` when there are fewer bytes,
    ///   ``ValueDecodingError/Reason/unexpectedLength(expected:found:)`` when there are more.
    public init(bluetoothBytes bytes: [UInt8]) throws(ValueDecodingError) {
        var reader = ByteReader(bytes, typeName: "Float")
        self = try reader.readFloat32()
        try reader.expectEnd()
    }

    /// The number as IEEE 754 single precision, 4 little-endian bytes.
    public var bluetoothBytes: [UInt8] {
        var writer = ByteWriter()
        writer.appendFloat32(self)
        return writer.bytes
    }
}

extension Double: Readable, Writable {
    /// Decodes an IEEE 754 double-precision number from exactly 8 little-endian bytes.
    ///
    /// - Parameter bytes: the 8 bytes.
    /// - Throws: ``ValueDecodingError/Reason/tooFewBytes(needed:available:)`` when there are fewer bytes,
    ///   ``ValueDecodingError/Reason/unexpectedLength(expected:found:)`` when there are more.
    public init(bluetoothBytes bytes: [UInt8]) throws(ValueDecodingError) {
        var reader = ByteReader(bytes, typeName: "Double")
        self = try reader.readFloat64()
        try reader.expectEnd()
    }

    /// The number as IEEE 754 double precision, 8 little-endian bytes.
    public var bluetoothBytes: [UInt8] {
        var writer = ByteWriter()
        writer.appendFloat64(self)
        return writer.bytes
    }
}
