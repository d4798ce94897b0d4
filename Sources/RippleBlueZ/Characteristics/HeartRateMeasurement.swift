/// A Heart Rate Measurement (characteristic 0x2A37 of the Heart Rate service), as the Heart Rate
/// Service specification lays it out: a flags byte, the rate (8 or 16 bits), then the optional energy
/// expended and RR-intervals the flags announce.
///
/// ```swift
/// peripheral.listen(to: .heartRateMeasurement, as: HeartRateMeasurement.self)
///     .sink { _ in } receiveValue: { print("\($0.beatsPerMinute) bpm") }
/// ```
public struct HeartRateMeasurement: Readable, Writable, Sendable, Hashable, CustomStringConvertible {
    /// What the sensor says about its contact with the skin (flags bits 1 and 2).
    public enum SensorContact: Sendable, Hashable {
        /// The sensor does not report contact (bit 2 clear).
        case notSupported
        /// Contact is reported and not detected (bits 2 set, 1 clear).
        case notDetected
        /// Contact is reported and detected (bits 2 and 1 set).
        case detected
    }

    /// Heart beats per minute.
    public var beatsPerMinute: Int
    /// The sensor's contact with the skin.
    public var sensorContact: SensorContact
    /// Energy expended since the last reset, in kilojoules, when the sensor reports it.
    public var energyExpended: Int?
    /// RR-intervals, oldest first, in units of 1/1024 s as sent.
    public var rrIntervalTicks: [UInt16]

    /// RR-intervals, oldest first, in seconds.
    public var rrIntervals: [Double] { rrIntervalTicks.map { Double($0) / 1024 } }

    /// A measurement with these fields.
    ///
    /// - Parameters:
    ///   - beatsPerMinute: heart beats per minute.
    ///   - sensorContact: the sensor's contact with the skin.
    ///   - energyExpended: energy expended since the last reset, in kilojoules, when the sensor reports it.
    ///   - rrIntervalTicks: the RR-intervals, oldest first, in units of 1/1024 s as sent.
    public init(
        beatsPerMinute: Int, sensorContact: SensorContact = .notSupported, energyExpended: Int? = nil,
        rrIntervalTicks: [UInt16] = []
    ) {
        self.beatsPerMinute = beatsPerMinute
        self.sensorContact = sensorContact
        self.energyExpended = energyExpended
        self.rrIntervalTicks = rrIntervalTicks
    }

    /// Decodes a notification or read of the characteristic.
    ///
    /// - Parameter bytes: the characteristic's (or descriptor's) value.
    /// - Throws: ``ValueDecodingError`` when a field the flags announce is missing, or when the
    ///   RR-intervals end with half of one.
    public init(bluetoothBytes bytes: [UInt8]) throws(ValueDecodingError) {
        var reader = ByteReader(bytes, typeName: "HeartRateMeasurement")
        let flags = try reader.read(UInt8.self)
        beatsPerMinute = flags & 0x01 == 0 ? Int(try reader.read(UInt8.self)) : Int(try reader.read(UInt16.self))
        switch (flags >> 1) & 0x03 {
        case 0b11: sensorContact = .detected
        case 0b10: sensorContact = .notDetected
        default: sensorContact = .notSupported
        }
        energyExpended = flags & 0x08 == 0 ? nil : Int(try reader.read(UInt16.self))
        var ticks: [UInt16] = []
        if flags & 0x10 != 0 {
            if reader.remaining % 2 != 0 {
                throw reader.error(.invalidValue("RR-intervals take 2 bytes each; \(reader.remaining) bytes are left"))
            }
            while !reader.isAtEnd { ticks.append(try reader.read(UInt16.self)) }
        }
        rrIntervalTicks = ticks
    }

    /// The bytes of this measurement: the rate in 8 bits when it fits, else 16.
    public var bluetoothBytes: [UInt8] {
        let wide = beatsPerMinute > Int(UInt8.max) || beatsPerMinute < 0
        var flags: UInt8 = wide ? 0x01 : 0
        switch sensorContact {
        case .notSupported: break
        case .notDetected: flags |= 0x04
        case .detected: flags |= 0x06
        }
        if energyExpended != nil { flags |= 0x08 }
        if !rrIntervalTicks.isEmpty { flags |= 0x10 }
        var writer = ByteWriter()
        writer.append(flags)
        if wide {
            writer.append(UInt16(clamping: beatsPerMinute))
        } else {
            writer.append(UInt8(clamping: beatsPerMinute))
        }
        if let energyExpended { writer.append(UInt16(clamping: energyExpended)) }
        for tick in rrIntervalTicks { writer.append(tick) }
        return writer.bytes
    }

    /// "72 bpm, contact detected, 12 kJ, RR 0.83 s".
    public var description: String {
        var parts = ["\(beatsPerMinute) bpm"]
        switch sensorContact {
        case .notSupported: break
        case .notDetected: parts.append("no contact")
        case .detected: parts.append("contact detected")
        }
        if let energyExpended { parts.append("\(energyExpended) kJ") }
        if !rrIntervals.isEmpty {
            parts.append("RR " + rrIntervals.map { String(format2: $0) + " s" }.joined(separator: ", "))
        }
        return parts.joined(separator: ", ")
    }
}

extension String {
    /// `value` with two decimals, without Foundation.
    init(format2 value: Double) {
        let hundredths = Int((value * 100).rounded())
        let fraction = abs(hundredths % 100)
        self = "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
