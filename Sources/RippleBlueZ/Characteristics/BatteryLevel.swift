/// A Battery Level (characteristic 0x2A19 of the Battery service): the charge left, in percent.
public struct BatteryLevel: Readable, Writable, Sendable, Hashable, CustomStringConvertible {
    /// The charge left, 0–100 % (a value set outside that range is sent clamped).
    public var percent: Int

    /// A level of `percent` (clamped to 0–100).
    ///
    /// - Parameter percent: the charge left, in percent.
    public init(percent: Int) {
        self.percent = Swift.min(Swift.max(percent, 0), 100)
    }

    /// Decodes the characteristic's one byte.
    ///
    /// - Parameter bytes: the characteristic's (or descriptor's) value.
    /// - Throws: ``ValueDecodingError`` when there is not exactly one byte, or it is above 100.
    public init(bluetoothBytes bytes: [UInt8]) throws(ValueDecodingError) {
        var reader = ByteReader(bytes, typeName: "BatteryLevel")
        let value = try reader.read(UInt8.self)
        guard value <= 100 else {
            throw reader.error(.invalidValue("\(value) % is above 100 %"), at: 0)
        }
        try reader.expectEnd()
        percent = Int(value)
    }

    /// The one byte: ``percent``, clamped to 0–100 (it is a `var`, so it may have been set to anything).
    public var bluetoothBytes: [UInt8] { [UInt8(Swift.min(Swift.max(percent, 0), 100))] }

    /// "87 %".
    public var description: String { "\(percent) %" }
}
