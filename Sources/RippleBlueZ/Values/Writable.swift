/// A value that can be encoded as the bytes written to a characteristic or a descriptor.
///
/// The integers, `Bool`, `Float`, `Double`, `String`, `[UInt8]` and `Data` conform; a profile's values
/// conform by building their bytes with a ``ByteWriter``.
public protocol Writable: Sendable {
    /// The bytes to write for this value, in GATT's layout (little-endian unless the profile says otherwise).
    var bluetoothBytes: [UInt8] { get }
}
