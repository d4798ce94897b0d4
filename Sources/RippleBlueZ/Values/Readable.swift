/// A value that can be decoded from the bytes of a characteristic or a descriptor.
///
/// The integers, `Bool`, `Float`, `Double`, `String`, `[UInt8]` and `Data` conform; a profile's values
/// (a heart rate measurement, a temperature) conform by reading their bytes with a ``ByteReader``.
public protocol Readable: Sendable {
    /// Decodes the value from `bytes`, as read from a characteristic or a descriptor.
    ///
    /// - Parameter bytes: the characteristic's (or descriptor's) value.
    /// - Throws: ``ValueDecodingError`` when the bytes are too few, too many, or not a valid value.
    init(bluetoothBytes bytes: [UInt8]) throws(ValueDecodingError)
}
