extension ByteReader {
    /// Reads an IEEE 11073-20601 SFLOAT (16 bits, little-endian as GATT lays it out) and moves past it.
    ///
    /// The top 4 bits are a signed exponent of 10, the low 12 bits a signed mantissa: `0xF06E` is
    /// 110 × 10⁻¹ = 11.0. The special values have exponent 0: NaN (`0x07FF`), NRes — not at this
    /// resolution — (`0x0800`) and the reserved `0x0801` read as NaN; `0x07FE` is +∞ and `0x0802` is −∞.
    /// - Returns: mantissa × 10^exponent as a `Double`, or one of the special values above.
    /// - Throws: ``ValueDecodingError/Reason/tooFewBytes(needed:available:)`` when fewer than 2 bytes are left.
    public mutating func readSFloat() throws(ValueDecodingError) -> Double {
        let raw = try read(UInt16.self)
        switch raw {
        case 0x07FF, 0x0800, 0x0801: return .nan
        case 0x07FE: return .infinity
        case 0x0802: return -.infinity
        default: break
        }
        let mantissa = Int(Int16(bitPattern: raw << 4) >> 4)
        let exponent = Int(Int16(bitPattern: raw) >> 12)
        return Self.scale(mantissa, byPowerOfTen: exponent)
    }

    /// Reads an IEEE 11073-20601 FLOAT (32 bits, little-endian as GATT lays it out) and moves past it.
    ///
    /// The top 8 bits are a signed exponent of 10, the low 24 bits a signed mantissa: 36.4 is
    /// 364 × 10⁻¹, `0xFF00016C`. The special values have exponent 0: NaN (`0x007FFFFF`), NRes
    /// (`0x00800000`) and the reserved `0x00800001` read as NaN; `0x007FFFFE` is +∞ and `0x00800002` is −∞.
    /// - Returns: mantissa × 10^exponent as a `Double`, or one of the special values above.
    /// - Throws: ``ValueDecodingError/Reason/tooFewBytes(needed:available:)`` when fewer than 4 bytes are left.
    public mutating func readFloat11073() throws(ValueDecodingError) -> Double {
        let raw = try read(UInt32.self)
        switch raw {
        case 0x007F_FFFF, 0x0080_0000, 0x0080_0001: return .nan
        case 0x007F_FFFE: return .infinity
        case 0x0080_0002: return -.infinity
        default: break
        }
        let mantissa = Int(Int32(bitPattern: raw << 8) >> 8)
        let exponent = Int(Int32(bitPattern: raw) >> 24)
        return Self.scale(mantissa, byPowerOfTen: exponent)
    }

    /// `mantissa` × 10^`exponent`, correctly rounded while the power of ten is exact in a `Double` (|exponent| ≤ 22).
    static func scale(_ mantissa: Int, byPowerOfTen exponent: Int) -> Double {
        var power = 1.0
        for _ in 0..<exponent.magnitude { power *= 10 }
        return exponent < 0 ? Double(mantissa) / power : Double(mantissa) * power
    }
}
