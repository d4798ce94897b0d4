extension Subscribers {
    /// How many values a subscriber wants: a finite count or unlimited.
    ///
    /// Arithmetic saturates as in Combine: anything plus or times unlimited is unlimited, overflow gives
    /// unlimited, unlimited minus anything is unlimited, and a result below zero is `.none`.
    @frozen
    public struct Demand: Equatable, Comparable, Hashable, Codable, CustomStringConvertible, Sendable {
        /// The count, or `unlimitedRaw` for unlimited.
        @usableFromInline
        internal let rawValue: UInt

        /// The raw value of `.unlimited`. Computed (like ``unlimited`` and ``none``), so that reading it
        /// folds to a constant instead of going through a lazily initialised global on every use.
        @inlinable
        internal static var unlimitedRaw: UInt { UInt(Int.max) + 1 }

        @inlinable
        internal init(rawValue: UInt) {
            self.rawValue = Swift.min(Self.unlimitedRaw, rawValue)
        }

        /// As many values as the publisher can produce.
        @inlinable
        public static var unlimited: Demand { Demand(rawValue: unlimitedRaw) }

        /// No values (a subscriber returns it from `receive(_:)` when it wants no more than before).
        @inlinable
        public static var none: Demand { Demand(rawValue: 0) }

        /// At most `value` values. `value` must not be negative (that traps, as in Combine).
        ///
        /// - Parameter value: The most values; not negative.
        /// - Returns: A demand of at most `value` values.
        @inlinable
        public static func max(_ value: Int) -> Demand {
            precondition(value >= 0, "demand cannot be negative")
            return Demand(rawValue: UInt(value))
        }

        /// The finite count, or `nil` when unlimited.
        @inlinable
        public var max: Int? {
            rawValue == Self.unlimitedRaw ? nil : Int(rawValue)
        }

        /// `"unlimited"` or `"max(n)"`.
        public var description: String {
            self == .unlimited ? "unlimited" : "max(\(rawValue))"
        }

        /// The saturating sum of two demands.
        ///
        /// - Parameters:
        ///   - lhs: The demand on the left.
        ///   - rhs: The demand on the right.
        /// - Returns: The sum, saturating at unlimited.
        @inlinable
        public static func + (lhs: Demand, rhs: Demand) -> Demand {
            if lhs.rawValue == unlimitedRaw || rhs.rawValue == unlimitedRaw { return .unlimited }
            let (sum, overflow) = lhs.rawValue.addingReportingOverflow(rhs.rawValue)
            return overflow ? .unlimited : Demand(rawValue: sum)
        }

        /// Adds `rhs` to `lhs`, saturating.
        ///
        /// - Parameters:
        ///   - lhs: The demand to change in place.
        ///   - rhs: The demand on the right.
        @inlinable
        public static func += (lhs: inout Demand, rhs: Demand) {
            lhs = lhs + rhs
        }

        /// The saturating sum of a demand and a count (a negative count subtracts, down to `.none`).
        ///
        /// - Parameters:
        ///   - lhs: The demand on the left.
        ///   - rhs: The count of values on the right.
        /// - Returns: The sum, saturating at unlimited.
        @inlinable
        public static func + (lhs: Demand, rhs: Int) -> Demand {
            rhs < 0 ? lhs - Demand(rawValue: rhs.magnitude) : lhs + Demand(rawValue: UInt(rhs))
        }

        /// Adds `rhs` to `lhs`, saturating.
        ///
        /// - Parameters:
        ///   - lhs: The demand to change in place.
        ///   - rhs: The count of values on the right.
        @inlinable
        public static func += (lhs: inout Demand, rhs: Int) {
            lhs = lhs + rhs
        }

        /// The saturating product of a demand and a count; a negative count traps, as a negative demand would.
        ///
        /// - Parameters:
        ///   - lhs: The demand on the left.
        ///   - rhs: The count of values on the right.
        /// - Returns: The product, saturating at unlimited.
        @inlinable
        public static func * (lhs: Demand, rhs: Int) -> Demand {
            if lhs.rawValue == unlimitedRaw { return .unlimited }
            precondition(rhs >= 0, "demand cannot be negative")
            let (product, overflow) = lhs.rawValue.multipliedReportingOverflow(by: UInt(rhs))
            return overflow ? .unlimited : Demand(rawValue: product)
        }

        /// Multiplies `lhs` by `rhs`, saturating.
        ///
        /// - Parameters:
        ///   - lhs: The demand to change in place.
        ///   - rhs: The count of values on the right.
        @inlinable
        public static func *= (lhs: inout Demand, rhs: Int) {
            lhs = lhs * rhs
        }

        /// The difference of two demands: unlimited stays unlimited, unlimited subtracted gives `.none`,
        /// and a negative result is `.none`.
        ///
        /// - Parameters:
        ///   - lhs: The demand on the left.
        ///   - rhs: The demand on the right.
        /// - Returns: The difference, no less than `.none`.
        @inlinable
        public static func - (lhs: Demand, rhs: Demand) -> Demand {
            if lhs.rawValue == unlimitedRaw { return .unlimited }
            if rhs.rawValue == unlimitedRaw { return .none }
            return lhs.rawValue >= rhs.rawValue ? Demand(rawValue: lhs.rawValue - rhs.rawValue) : .none
        }

        /// Subtracts `rhs` from `lhs`, as `-(_:_:)`.
        ///
        /// - Parameters:
        ///   - lhs: The demand to change in place.
        ///   - rhs: The demand on the right.
        @inlinable
        public static func -= (lhs: inout Demand, rhs: Demand) {
            lhs = lhs - rhs
        }

        /// The difference of a demand and a count. A negative count adds; as in Combine, a sum beyond
        /// `Int.max` overflows to `.none`, and unlimited stays unlimited.
        ///
        /// - Parameters:
        ///   - lhs: The demand on the left.
        ///   - rhs: The count of values on the right.
        /// - Returns: The difference, no less than `.none`.
        @inlinable
        public static func - (lhs: Demand, rhs: Int) -> Demand {
            guard rhs < 0 else { return lhs - Demand(rawValue: UInt(rhs)) }
            if lhs.rawValue == unlimitedRaw { return .unlimited }
            let (sum, overflow) = Int(lhs.rawValue).subtractingReportingOverflow(rhs)
            return overflow ? .none : Demand(rawValue: UInt(sum))
        }

        /// Subtracts `rhs` from `lhs`.
        ///
        /// - Parameters:
        ///   - lhs: The demand to change in place.
        ///   - rhs: The count of values on the right.
        @inlinable
        public static func -= (lhs: inout Demand, rhs: Int) {
            lhs = lhs - rhs
        }

        /// Orders demands by count; unlimited is greater than every finite demand.
        ///
        /// - Parameters:
        ///   - lhs: The demand on the left.
        ///   - rhs: The demand on the right.
        /// - Returns: Whether `lhs` is less than `rhs`.
        @inlinable
        public static func < (lhs: Demand, rhs: Demand) -> Bool {
            lhs.rawValue < rhs.rawValue
        }

        /// Whether the demand is greater than `rhs`; unlimited is greater than every count.
        ///
        /// - Parameters:
        ///   - lhs: The demand on the left.
        ///   - rhs: The count of values on the right.
        /// - Returns: Whether `lhs` is greater than `rhs`.
        @inlinable
        public static func > (lhs: Demand, rhs: Int) -> Bool {
            compare(lhs, rhs) > 0
        }

        /// Whether the demand is at least `rhs`; unlimited is at least every count.
        ///
        /// - Parameters:
        ///   - lhs: The demand on the left.
        ///   - rhs: The count of values on the right.
        /// - Returns: Whether `lhs` is at least `rhs`.
        @inlinable
        public static func >= (lhs: Demand, rhs: Int) -> Bool {
            compare(lhs, rhs) >= 0
        }

        /// Whether the demand is less than `rhs`; unlimited never is.
        ///
        /// - Parameters:
        ///   - lhs: The demand on the left.
        ///   - rhs: The count of values on the right.
        /// - Returns: Whether `lhs` is less than `rhs`.
        @inlinable
        public static func < (lhs: Demand, rhs: Int) -> Bool {
            compare(lhs, rhs) < 0
        }

        /// Whether the demand is at most `rhs`; unlimited never is.
        ///
        /// - Parameters:
        ///   - lhs: The demand on the left.
        ///   - rhs: The count of values on the right.
        /// - Returns: Whether `lhs` is at most `rhs`.
        @inlinable
        public static func <= (lhs: Demand, rhs: Int) -> Bool {
            compare(lhs, rhs) <= 0
        }

        /// Whether `lhs` is greater than the demand; never when it is unlimited.
        ///
        /// - Parameters:
        ///   - lhs: The count of values on the left.
        ///   - rhs: The demand on the right.
        /// - Returns: Whether `lhs` is greater than `rhs`.
        @inlinable
        public static func > (lhs: Int, rhs: Demand) -> Bool {
            compare(rhs, lhs) < 0
        }

        /// Whether `lhs` is at least the demand; never when it is unlimited.
        ///
        /// - Parameters:
        ///   - lhs: The count of values on the left.
        ///   - rhs: The demand on the right.
        /// - Returns: Whether `lhs` is at least `rhs`.
        @inlinable
        public static func >= (lhs: Int, rhs: Demand) -> Bool {
            compare(rhs, lhs) <= 0
        }

        /// Whether `lhs` is less than the demand; always when it is unlimited.
        ///
        /// - Parameters:
        ///   - lhs: The count of values on the left.
        ///   - rhs: The demand on the right.
        /// - Returns: Whether `lhs` is less than `rhs`.
        @inlinable
        public static func < (lhs: Int, rhs: Demand) -> Bool {
            compare(rhs, lhs) > 0
        }

        /// Whether `lhs` is at most the demand; always when it is unlimited.
        ///
        /// - Parameters:
        ///   - lhs: The count of values on the left.
        ///   - rhs: The demand on the right.
        /// - Returns: Whether `lhs` is at most `rhs`.
        @inlinable
        public static func <= (lhs: Int, rhs: Demand) -> Bool {
            compare(rhs, lhs) >= 0
        }

        /// Whether the demand is the finite count `rhs`.
        ///
        /// - Parameters:
        ///   - lhs: a value.
        ///   - rhs: another value.
        /// - Returns: whether they are equal.
        @inlinable
        public static func == (lhs: Demand, rhs: Int) -> Bool {
            compare(lhs, rhs) == 0
        }

        /// Whether the demand is not the finite count `rhs`.
        ///
        /// - Parameters:
        ///   - lhs: The demand on the left.
        ///   - rhs: The count of values on the right.
        /// - Returns: Whether `lhs` and `rhs` differ.
        @inlinable
        public static func != (lhs: Demand, rhs: Int) -> Bool {
            compare(lhs, rhs) != 0
        }

        /// Whether `lhs` is the demand's finite count.
        ///
        /// - Parameters:
        ///   - lhs: a value.
        ///   - rhs: another value.
        /// - Returns: whether they are equal.
        @inlinable
        public static func == (lhs: Int, rhs: Demand) -> Bool {
            compare(rhs, lhs) == 0
        }

        /// Whether `lhs` is not the demand's finite count.
        ///
        /// - Parameters:
        ///   - lhs: The count of values on the left.
        ///   - rhs: The demand on the right.
        /// - Returns: Whether `lhs` and `rhs` differ.
        @inlinable
        public static func != (lhs: Int, rhs: Demand) -> Bool {
            compare(rhs, lhs) != 0
        }

        /// -1, 0 or 1 as `demand` is below, equal to or above `count`.
        @inlinable
        internal static func compare(_ demand: Demand, _ count: Int) -> Int {
            if demand.rawValue == unlimitedRaw || count < 0 { return 1 }
            let count = UInt(count)
            return demand.rawValue < count ? -1 : (demand.rawValue == count ? 0 : 1)
        }

        /// Decodes a demand from its count (unlimited encodes as `Int.max + 1`).
        ///
        /// - Parameter decoder: the decoder to read from.
        /// - Throws: `DecodingError` when the data does not have this form.
        public init(from decoder: any Decoder) throws {
            try self.init(rawValue: decoder.singleValueContainer().decode(UInt.self))
        }

        /// Encodes the demand as its count.
        ///
        /// - Parameter encoder: the encoder to write to.
        /// - Throws: the encoder's error.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }
}
