extension Array: Readable, Writable where Element == UInt8 {
    /// Takes `bytes` as they are; never throws.
    public init(bluetoothBytes bytes: [UInt8]) throws(ValueDecodingError) {
        self = bytes
    }

    /// The bytes as they are.
    public var bluetoothBytes: [UInt8] { self }
}
