extension String: Readable, Writable {
    /// Decodes a UTF-8 string from all of `bytes`, dropping NUL bytes at its end (some peripherals pad
    /// or terminate their strings with them).
    ///
    /// - Parameter bytes: the characteristic's (or descriptor's) value.
    /// - Throws: ``ValueDecodingError/Reason/invalidUTF8`` when the bytes are not UTF-8.
    public init(bluetoothBytes bytes: [UInt8]) throws(ValueDecodingError) {
        var reader = ByteReader(bytes, typeName: "String")
        self = try reader.readUTF8Remaining()
    }

    /// The string's UTF-8 bytes, without a terminating NUL.
    public var bluetoothBytes: [UInt8] { Array(utf8) }
}
