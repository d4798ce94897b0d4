/// A Temperature Measurement (characteristic 0x2A1C of the Health Thermometer service): a flags byte,
/// the temperature as an IEEE 11073 FLOAT in °C or °F, then the time stamp and the temperature type
/// when the flags announce them.
public struct TemperatureMeasurement: Readable, Sendable, Hashable, CustomStringConvertible {
    /// The unit of ``value`` (flags bit 0).
    public enum Unit: Sendable, Hashable {
        /// Degrees Celsius.
        case celsius
        /// Degrees Fahrenheit.
        case fahrenheit
    }

    /// The temperature in ``unit``; NaN when the thermometer sent "not a number" or "no value at this
    /// resolution", ±∞ for its infinities.
    public var value: Double
    /// The unit of ``value``.
    public var unit: Unit
    /// When it was measured (the thermometer's clock, no time zone), when sent.
    public var timestamp: DateTime?
    /// Where it was measured (Temperature Type, 0x2A1D: 1 armpit, 2 body, 3 ear, 4 finger, 5 gut, 6 mouth,
    /// 7 rectum, 8 toe, 9 tympanum), when sent.
    public var type: UInt8?

    /// The temperature in degrees Celsius, whatever the unit sent.
    public var celsius: Double { unit == .celsius ? value : (value - 32) * 5 / 9 }

    /// A measurement with these fields.
    ///
    /// - Parameters:
    ///   - value: the temperature in ``unit``; NaN when the thermometer sent "not a number" or "no value at this
    ///     resolution", ±∞ for its infinities.
    ///   - unit: the unit of ``value``.
    ///   - timestamp: when it was measured (the thermometer's clock, no time zone), when sent.
    ///   - type: where it was measured (Temperature Type, 0x2A1D: 1 armpit, 2 body, 3 ear, 4 finger, 5 gut, 6 mouth, 7
    ///     rectum, 8 toe, 9 tympanum), when sent.
    public init(value: Double, unit: Unit, timestamp: DateTime? = nil, type: UInt8? = nil) {
        self.value = value
        self.unit = unit
        self.timestamp = timestamp
        self.type = type
    }

    /// Decodes a notification, indication or read of the characteristic.
    ///
    /// - Parameter bytes: the characteristic's value.
    /// - Throws: ``ValueDecodingError`` when a field the flags announce is missing or the time stamp is
    ///   not a date.
    public init(bluetoothBytes bytes: [UInt8]) throws(ValueDecodingError) {
        var reader = ByteReader(bytes, typeName: "TemperatureMeasurement")
        let flags = try reader.read(UInt8.self)
        value = try reader.readFloat11073()
        unit = flags & 0x01 == 0 ? .celsius : .fahrenheit
        timestamp = flags & 0x02 == 0 ? nil : try DateTime(reading: &reader)
        type = flags & 0x04 == 0 ? nil : try reader.read(UInt8.self)
    }

    /// "36.4 °C".
    public var description: String {
        "\(value) °\(unit == .celsius ? "C" : "F")"
    }
}

/// The GATT Date Time layout (characteristic 0x2A08): year, month, day, hours, minutes, seconds, as
/// a device's clock gives them (no time zone). Zero year, month or day means "not known".
public struct DateTime: Readable, Writable, Sendable, Hashable, CustomStringConvertible {
    /// 1582–9999, or 0 when not known.
    public var year: Int
    /// 1–12, or 0 when not known.
    public var month: Int
    /// 1–31, or 0 when not known.
    public var day: Int
    /// 0–23.
    public var hours: Int
    /// 0–59.
    public var minutes: Int
    /// 0–59.
    public var seconds: Int

    /// A date and time with these fields (not checked: ``bluetoothBytes`` clamps them into their bytes).
    ///
    /// - Parameters:
    ///   - year: 1582–9999, or 0 when not known.
    ///   - month: 1–12, or 0 when not known.
    ///   - day: 1–31, or 0 when not known.
    ///   - hours: 0–23.
    ///   - minutes: 0–59.
    ///   - seconds: 0–59.
    public init(year: Int, month: Int, day: Int, hours: Int, minutes: Int, seconds: Int) {
        self.year = year
        self.month = month
        self.day = day
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
    }

    /// Decodes the 7 bytes of a Date Time.
    ///
    /// - Parameter bytes: the 7 bytes.
    /// - Throws: ``ValueDecodingError`` when there are not exactly 7 bytes or a field is out of range.
    public init(bluetoothBytes bytes: [UInt8]) throws(ValueDecodingError) {
        var reader = ByteReader(bytes, typeName: "DateTime")
        try self.init(reading: &reader)
        try reader.expectEnd()
    }

    /// Reads the 7 bytes of a Date Time from `reader` (part of a larger value).
    init(reading reader: inout ByteReader) throws(ValueDecodingError) {
        let start = reader.offset
        year = Int(try reader.read(UInt16.self))
        month = Int(try reader.read(UInt8.self))
        day = Int(try reader.read(UInt8.self))
        hours = Int(try reader.read(UInt8.self))
        minutes = Int(try reader.read(UInt8.self))
        seconds = Int(try reader.read(UInt8.self))
        let valid =
            (year == 0 || (1582...9999).contains(year)) && (0...12).contains(month) && (0...31).contains(day)
            && (0...23).contains(hours) && (0...59).contains(minutes) && (0...59).contains(seconds)
        guard valid else {
            throw reader.error(.invalidValue("\(self) is not a date and time"), at: start)
        }
    }

    /// The 7 bytes.
    public var bluetoothBytes: [UInt8] {
        var writer = ByteWriter()
        writer.append(UInt16(clamping: year))
        for field in [month, day, hours, minutes, seconds] { writer.append(UInt8(clamping: field)) }
        return writer.bytes
    }

    /// "2026-11-24 19:30:05".
    public var description: String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day)) \(two(hours)):\(two(minutes)):\(two(seconds))"
    }
}
