/// One Heart Rate Measurement (characteristic 0x2A37), the value a heart-rate monitor notifies about once
/// a second, in the format of the Heart Rate Service specification:
///
/// - a flags byte: bit 0 = the heart rate is a `UINT16` (else `UINT8`), bits 1–2 = sensor contact
///   (`0b10` supported but not detected, `0b11` supported and detected, `0b00` not supported),
///   bit 3 = Energy Expended present, bit 4 = RR-Intervals present;
/// - the heart rate in beats per minute (`UINT8`, or little-endian `UINT16`);
/// - the energy expended in kilojoules since the last reset (little-endian `UINT16`), when present;
/// - RR intervals, each a little-endian `UINT16` in units of 1/1024 second, when present.
public struct SimulatedHeartRateMeasurement: Sendable, Hashable {
    /// Whether the sensor can tell that it touches the skin, and whether it does.
    public enum SensorContact: Sendable, Hashable {
        /// The sensor has no contact detection (flag bits 1–2 = `0b00`).
        case notSupported
        /// Contact detection is supported; no contact now (flag bits 1–2 = `0b10`).
        case notDetected
        /// Contact detection is supported and the sensor touches the skin (flag bits 1–2 = `0b11`).
        case detected
    }

    /// Flag bit 0: the heart rate value is a `UINT16`.
    public static let valueIsUInt16Flag: UInt8 = 0x01
    /// Flag bit 1: sensor contact detected (meaningful with ``contactSupportedFlag``).
    public static let contactDetectedFlag: UInt8 = 0x02
    /// Flag bit 2: sensor contact detection supported.
    public static let contactSupportedFlag: UInt8 = 0x04
    /// Flag bit 3: the Energy Expended field is present.
    public static let energyExpendedFlag: UInt8 = 0x08
    /// Flag bit 4: RR intervals are present.
    public static let rrIntervalsFlag: UInt8 = 0x10

    /// The heart rate in beats per minute.
    public var beatsPerMinute: UInt16
    /// Whether the value is sent as a `UINT16` even when it fits in a byte (it always is above 255).
    public var usesUInt16Format: Bool
    /// The sensor contact status.
    public var sensorContact: SensorContact
    /// The energy expended since the last reset, in kilojoules; nil when not sent in this measurement.
    public var energyExpended: UInt16?
    /// The intervals between the beats that ended since the previous measurement, in 1/1024 second, oldest
    /// first; empty when none are sent.
    public var rrIntervals: [UInt16]

    /// A measurement of `beatsPerMinute`.
    ///
    /// - Parameters:
    ///   - beatsPerMinute: the heart rate in beats per minute.
    ///   - usesUInt16Format: whether the value is sent as a `UINT16` even when it fits in a byte (it always is above
    ///     255).
    ///   - sensorContact: the sensor contact status.
    ///   - energyExpended: the energy expended since the last reset, in kilojoules; nil when not sent in this
    ///     measurement.
    ///   - rrIntervals: the intervals between the beats that ended since the previous measurement, in 1/1024 second,
    ///     oldest first; empty when none are sent.
    public init(
        beatsPerMinute: UInt16, usesUInt16Format: Bool = false, sensorContact: SensorContact = .detected,
        energyExpended: UInt16? = nil, rrIntervals: [UInt16] = []
    ) {
        self.beatsPerMinute = beatsPerMinute
        self.usesUInt16Format = usesUInt16Format
        self.sensorContact = sensorContact
        self.energyExpended = energyExpended
        self.rrIntervals = rrIntervals
    }

    /// The flags byte this measurement is sent with.
    public var flags: UInt8 {
        var flags: UInt8 = 0
        if usesUInt16Format || beatsPerMinute > UInt16(UInt8.max) { flags |= Self.valueIsUInt16Flag }
        switch sensorContact {
        case .notSupported: break
        case .notDetected: flags |= Self.contactSupportedFlag
        case .detected: flags |= Self.contactSupportedFlag | Self.contactDetectedFlag
        }
        if energyExpended != nil { flags |= Self.energyExpendedFlag }
        if !rrIntervals.isEmpty { flags |= Self.rrIntervalsFlag }
        return flags
    }

    /// The characteristic value: flags, heart rate, energy expended, RR intervals.
    public var bytes: [UInt8] {
        let flags = flags
        var bytes: [UInt8] = [flags]
        if flags & Self.valueIsUInt16Flag != 0 {
            bytes += ReadyMadeSupport.littleEndian(beatsPerMinute)
        } else {
            bytes.append(UInt8(truncatingIfNeeded: beatsPerMinute))
        }
        if let energyExpended { bytes += ReadyMadeSupport.littleEndian(energyExpended) }
        for interval in rrIntervals { bytes += ReadyMadeSupport.littleEndian(interval) }
        return bytes
    }

    /// The measurement `bytes` encode, or nil when they are not a well-formed Heart Rate Measurement
    /// (too short for the fields its flags announce, or an odd byte left over for the RR intervals).
    ///
    /// - Parameter bytes: the characteristic's value.
    public init?(bytes: [UInt8]) {
        guard let flags = bytes.first else { return nil }
        var index = 1
        func uint16() -> UInt16? {
            guard index + 1 < bytes.count else { return nil }
            defer { index += 2 }
            return UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8
        }
        let isUInt16 = flags & Self.valueIsUInt16Flag != 0
        if isUInt16 {
            guard let value = uint16() else { return nil }
            beatsPerMinute = value
        } else {
            guard index < bytes.count else { return nil }
            beatsPerMinute = UInt16(bytes[index])
            index += 1
        }
        usesUInt16Format = isUInt16
        switch (flags & Self.contactSupportedFlag != 0, flags & Self.contactDetectedFlag != 0) {
        case (true, true): sensorContact = .detected
        case (true, false): sensorContact = .notDetected
        default: sensorContact = .notSupported
        }
        if flags & Self.energyExpendedFlag != 0 {
            guard let value = uint16() else { return nil }
            energyExpended = value
        } else {
            energyExpended = nil
        }
        var intervals: [UInt16] = []
        if flags & Self.rrIntervalsFlag != 0 {
            guard (bytes.count - index) % 2 == 0, index < bytes.count else { return nil }
            while let interval = uint16() { intervals.append(interval) }
        } else if index != bytes.count {
            return nil
        }
        rrIntervals = intervals
    }

    /// The interval of one beat at `beatsPerMinute`, in 1/1024 second (rounded).
    ///
    /// - Parameter beatsPerMinute: the heart rate.
    /// - Returns: the interval in 1/1024 second.
    public static func rrInterval(beatsPerMinute: UInt16) -> UInt16 {
        guard beatsPerMinute > 0 else { return UInt16.max }
        let bpm = UInt32(beatsPerMinute)
        return UInt16(clamping: (60 * 1024 + bpm / 2) / bpm)
    }

    /// A minute of a person at rest, one measurement per second: the heart rate drifts between 66 and
    /// 78 bpm (with a breathing rhythm), each measurement carries the RR intervals of the beats that ended
    /// during its second (one or two), and every tenth, starting with the first, carries the energy
    /// expended, rising by 1 kJ every 10 s from 0. Sensor contact is detected throughout.
    public static let restingMinute: [SimulatedHeartRateMeasurement] = {
        let rates: [UInt16] = [
            68, 69, 71, 72, 74, 75, 76, 77, 76, 75, 73, 72, 70, 69, 68, 67, 66, 67, 68, 70,
            71, 73, 74, 76, 78, 77, 75, 73, 71, 70, 69, 68, 67, 67, 68, 69, 71, 72, 73, 74,
            75, 76, 76, 75, 74, 72, 71, 70, 69, 68, 67, 66, 66, 67, 68, 69, 70, 71, 70, 69,
        ]
        var measurements: [SimulatedHeartRateMeasurement] = []
        // The end of the next beat, in 1/1024 s from the start of the minute.
        var nextBeat = 0
        for (second, bpm) in rates.enumerated() {
            let secondEnd = (second + 1) * 1024
            var intervals: [UInt16] = []
            let interval = rrInterval(beatsPerMinute: bpm)
            while nextBeat + Int(interval) <= secondEnd {
                nextBeat += Int(interval)
                intervals.append(interval)
            }
            let energy: UInt16? = second % 10 == 0 ? UInt16(second / 10) : nil
            measurements.append(
                SimulatedHeartRateMeasurement(beatsPerMinute: bpm, energyExpended: energy, rrIntervals: intervals))
        }
        return measurements
    }()
}

/// Where a heart-rate sensor is worn: the Body Sensor Location characteristic (0x2A38), one byte.
public enum SimulatedBodySensorLocation: UInt8, Sendable, Hashable, CaseIterable {
    /// 0: other.
    case other = 0
    /// 1: chest (a chest strap).
    case chest = 1
    /// 2: wrist.
    case wrist = 2
    /// 3: finger.
    case finger = 3
    /// 4: hand.
    case hand = 4
    /// 5: ear lobe.
    case earLobe = 5
    /// 6: foot.
    case foot = 6

    /// The location from its name in a world file (`chest`, `wrist`, `ear-lobe`, …), or nil.
    ///
    /// - Parameter name: the location's name.
    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = match
    }

    /// The location's name in a world file.
    public var name: String {
        switch self {
        case .other: "other"
        case .chest: "chest"
        case .wrist: "wrist"
        case .finger: "finger"
        case .hand: "hand"
        case .earLobe: "ear-lobe"
        case .foot: "foot"
        }
    }
}
