import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleTestSupport
import Testing

/// A listener ended by its own subscriber from inside a delivery (`prefix`, `first`) on both paths: the
/// pipeline completes, on a stream that keeps coming.
@Suite(.timeLimit(Patience.test)) struct NotificationPrefixTests {
    @Test(arguments: [NotificationTransport.bus, .automatic])
    func prefixOfAStreamCompletesWithExactlyItsValues(transport: NotificationTransport) async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let numbers = peripheral.listen(to: CharacteristicReference(Lab.stream), transport: transport).prefix(1_000)
                .collect()
            var collected: [[UInt8]] = []
            for try await batch in numbers.values { collected = batch }
            #expect(collected.count == 1_000)
            #expect(collected.map { UInt32($0[0]) | UInt32($0[1]) << 8 } == Array(0..<1_000))
        }
    }
}
