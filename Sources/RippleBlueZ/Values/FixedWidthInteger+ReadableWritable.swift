extension Readable where Self: FixedWidthInteger {
    /// Decodes the integer from exactly as many little-endian bytes as it is wide (two's complement when signed).
    ///
    /// - Parameter bytes: the characteristic's (or descriptor's) value.
    /// - Throws: ``ValueDecodingError/Reason/tooFewBytes(needed:available:)`` when there are fewer bytes,
    ///   ``ValueDecodingError/Reason/unexpectedLength(expected:found:)`` when there are more.
    public init(bluetoothBytes bytes: [UInt8]) throws(ValueDecodingError) {
        var reader = ByteReader(bytes, typeName: "\(Self.self)")
        self = try reader.read(Self.self)
        try reader.expectEnd()
    }
}

extension Writable where Self: FixedWidthInteger {
    /// The integer as many little-endian bytes as it is wide (two's complement when signed).
    public var bluetoothBytes: [UInt8] {
        var writer = ByteWriter()
        writer.append(self)
        return writer.bytes
    }
}

extension UInt8: Readable, Writable {}
extension UInt16: Readable, Writable {}
extension UInt32: Readable, Writable {}
extension UInt64: Readable, Writable {}
extension Int8: Readable, Writable {}
extension Int16: Readable, Writable {}
extension Int32: Readable, Writable {}
extension Int64: Readable, Writable {}
