/// Helpers the ready-made services share.
enum ReadyMadeSupport {
    /// The bytes of `value` from `offset`, as a peripheral answers a read at an offset: an offset past the
    /// end fails with ATT's Invalid Offset (bluetoothd's InvalidArguments "Invalid offset"); an offset equal
    /// to the length reads nothing.
    static func read(_ value: [UInt8], at offset: Int) throws(BlueZError) -> [UInt8] {
        guard offset >= 0, offset <= value.count else { throw BlueZError.attError(ReadyMadeATTError.invalidOffset) }
        return Array(value[offset...])
    }

    /// `value` as a little-endian `UInt16`.
    static func littleEndian(_ value: UInt16) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
    }
}

/// ATT error codes the ready-made peripherals answer with (Core Specification Vol 3 Part F 3.4.1.1, and
/// the Common Profile and Service Error Code range).
enum ReadyMadeATTError {
    /// Invalid Offset.
    static let invalidOffset: UInt8 = 0x07
    /// Invalid Attribute Value Length.
    static let invalidLength: UInt8 = 0x0D
    /// Value Not Allowed.
    static let valueNotAllowed: UInt8 = 0x13
    /// The Heart Rate service's "Control Point Not Supported" (application error 0x80).
    static let controlPointNotSupported: UInt8 = 0x80
}
