/// Where a heart-rate sensor sits (characteristic 0x2A38 of the Heart Rate service): one byte.
public enum BodySensorLocation: Readable, Writable, Sendable, Hashable {
    /// 0: other.
    case other
    /// 1: chest.
    case chest
    /// 2: wrist.
    case wrist
    /// 3: finger.
    case finger
    /// 4: hand.
    case hand
    /// 5: ear lobe.
    case earLobe
    /// 6: foot.
    case foot
    /// A value the specification reserves for future use (7–255), kept as sent.
    case reserved(UInt8)

    /// The location the byte `value` stands for.
    ///
    /// - Parameter value: the characteristic's byte.
    public init(rawValue value: UInt8) {
        switch value {
        case 0: self = .other
        case 1: self = .chest
        case 2: self = .wrist
        case 3: self = .finger
        case 4: self = .hand
        case 5: self = .earLobe
        case 6: self = .foot
        default: self = .reserved(value)
        }
    }

    /// Its byte.
    public var rawValue: UInt8 {
        switch self {
        case .other: 0
        case .chest: 1
        case .wrist: 2
        case .finger: 3
        case .hand: 4
        case .earLobe: 5
        case .foot: 6
        case .reserved(let value): value
        }
    }

    /// Decodes the characteristic's one byte.
    ///
    /// - Parameter bytes: the characteristic's (or descriptor's) value.
    /// - Throws: ``ValueDecodingError`` when there is not exactly one byte.
    public init(bluetoothBytes bytes: [UInt8]) throws(ValueDecodingError) {
        var reader = ByteReader(bytes, typeName: "BodySensorLocation")
        let value = try reader.read(UInt8.self)
        try reader.expectEnd()
        self.init(rawValue: value)
    }

    /// The one byte.
    public var bluetoothBytes: [UInt8] { [rawValue] }
}
