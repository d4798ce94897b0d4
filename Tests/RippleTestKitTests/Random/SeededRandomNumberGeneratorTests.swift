import RippleTestKit
import Testing

/// The seeded generator: SplitMix64's published outputs, the same sequence for the same seed.
@Suite struct SeededRandomNumberGeneratorTests {
    @Test func theSequenceOfSeedZeroIsSplitMix64s() {
        var generator = SeededRandomNumberGenerator(seed: 0)
        #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
        #expect(generator.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(generator.next() == 0x06C4_5D18_8009_454F)
    }

    @Test func aSeedRepeatsItsSequenceAndAnotherSeedDoesNot() {
        var first = SeededRandomNumberGenerator(seed: 42)
        var second = SeededRandomNumberGenerator(seed: 42)
        var other = SeededRandomNumberGenerator(seed: 43)
        let drawn = (0..<8).map { _ in first.next() }
        #expect(drawn == (0..<8).map { _ in second.next() })
        #expect(drawn != (0..<8).map { _ in other.next() })
    }

    @Test func drawsBelowACountStayBelowItAndReachEveryValue() {
        var generator = SeededRandomNumberGenerator(seed: 7)
        let drawn = (0..<1_000).map { _ in generator.next(below: 6) }
        #expect(Set(drawn) == Set(0..<6))
        #expect(generator.next(below: 1) == 0 && generator.next(below: 0) == 0 && generator.next(below: -3) == 0)
    }

    @Test func theStandardLibrarysDrawsUseIt() {
        var generator = SeededRandomNumberGenerator(seed: 1)
        var again = SeededRandomNumberGenerator(seed: 1)
        #expect(
            (0..<16).map { _ in Int.random(in: 0...32, using: &generator) }
                == (0..<16).map { _ in Int.random(in: 0...32, using: &again) })
    }
}
