/// A random number generator whose sequence is fixed by a seed: a property test that draws from it draws
/// the same values on every run, machine and toolchain, and a failing seed repeats the failure.
///
/// ```swift
/// var generator = SeededRandomNumberGenerator(seed: 42)
/// let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
/// ```
///
/// It is SplitMix64 (Steele, Lea and Flood, 2014): fast, 64 bits of state, and its outputs are published, so
/// the sequence of a seed never changes. (What `Int.random(in:using:)` makes of those outputs is the
/// standard library's to decide; a test that must draw the same across toolchains uses ``next()`` or
/// ``next(below:)``.) It is not for cryptography.
public struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    ///
    /// - Parameter seed: Any 64-bit value; 0 is as good as any other.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    ///
    /// - Returns: A value drawn uniformly from all 64-bit values.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A whole number from 0 up to, not including, `count`, drawn the same way on every toolchain.
    ///
    /// - Parameter count: How many values there are to choose from.
    /// - Returns: One of `0..<count`, each about equally likely (by the remainder of ``next()``); 0 when
    ///   `count` is 1 or less.
    public mutating func next(below count: Int) -> Int {
        guard count > 1 else { return 0 }
        return Int(next() % UInt64(count))
    }
}
