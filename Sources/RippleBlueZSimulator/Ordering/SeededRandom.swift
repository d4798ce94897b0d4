import RippleTestKit

/// The shuffled order's source of choices: RippleTestKit's SplitMix64 from a 64-bit seed, so that a seed
/// gives the same choices on every machine and toolchain (Swift's own `random(in:using:)` may change how it
/// draws).
struct SeededRandom {
    private var generator: SeededRandomNumberGenerator

    /// A generator whose choices are fixed by `seed`.
    ///
    /// - Parameters:
    ///   - seed: Any 64-bit value.
    init(seed: UInt64) {
        generator = SeededRandomNumberGenerator(seed: seed)
    }

    /// The next 64 random bits.
    ///
    /// - Returns: A value drawn uniformly from all 64-bit values.
    mutating func next() -> UInt64 {
        generator.next()
    }

    /// A whole number from 0 up to, not including, `count` (0 when `count` is 0 or less).
    ///
    /// - Parameters:
    ///   - count: How many values there are to choose from.
    /// - Returns: One of `0..<count`, each about equally likely.
    mutating func below(_ count: Int) -> Int {
        generator.next(below: count)
    }

    /// Whether an event with odds of one in `odds` happens this time.
    ///
    /// - Parameters:
    ///   - odds: 2 for a coin toss; 1 or less for always.
    /// - Returns: True about once in `odds` draws.
    mutating func oneIn(_ odds: Int) -> Bool {
        below(odds) == 0
    }

    /// How many loop turns a wait lasts: 0 half the time, else 1, 2 or 4 (halving the odds each time).
    ///
    /// - Returns: 0, 1, 2 or 4.
    mutating func turns() -> Int {
        switch below(8) {
        case 0..<4: 0
        case 4..<6: 1
        case 6: 2
        default: 4
        }
    }
}
