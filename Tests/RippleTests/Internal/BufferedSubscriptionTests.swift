import Testing

@testable import Ripple

@Suite("BufferedSubscription")
struct BufferedSubscriptionTests {
    @Test func aDemandOfNothingTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let subscription = BufferedSubscription(
                downstream: TestSubscriber<Int, Never>(initialDemand: nil), capacity: 1, overflow: .dropNewest,
                description: "Events")
            subscription.request(.none)
        }
        expectTrap(result, saying: TrapMessage.zeroDemand)
    }
}
