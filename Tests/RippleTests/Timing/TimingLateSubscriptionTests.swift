import Testing

@testable import Ripple

@Suite("Timing operators: a cancel before the upstream's subscription")
struct TimingLateSubscriptionTests {
    /// As Combine's, delay, receive(on:), debounce and timeout forget a cancel that comes before their
    /// upstream's subscription (no downstream can send one: it gets the operator's subscription only after the
    /// upstream's), then hand the late subscription downstream and go on as usual: only debounce asks the
    /// upstream by itself (for everything, as always); the others pass the downstream's requests on.
    @Test(arguments: ["delay", "receive(on:)", "debounce", "timeout"])
    func aCancelBeforeTheSubscriptionIsForgottenAsInCombine(name: String) {
        let scheduler = VirtualTimeScheduler()
        let upstream = LatePublisher<Int, Never>()
        let subscriber = TimelineSubscriber<Int, Never>(scheduler, initialDemand: nil)
        defer { subscriber.cancel() }
        switch name {
        case "delay": upstream.delay(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
        case "receive(on:)": upstream.receive(on: scheduler).subscribe(subscriber)
        case "debounce": upstream.debounce(for: .seconds(1), scheduler: scheduler).subscribe(subscriber)
        default: upstream.timeout(.seconds(5), scheduler: scheduler).subscribe(subscriber)
        }
        upstream.subscriberAsSubscription?.cancel()
        #expect(subscriber.timeline == [])
        upstream.sendSubscription()
        let asksItself = name == "debounce"
        #expect(upstream.subscription.calls == (asksItself ? [.request(.unlimited)] : []))
        #expect(subscriber.timeline.count == 1)
        subscriber.request(.max(1))
        #expect(upstream.subscription.calls == (asksItself ? [.request(.unlimited)] : [.request(.max(1))]))
        #expect(upstream.send(1) == .none)
        scheduler.advance(by: .seconds(1))
        let due = name == "delay" || name == "debounce" ? "1.0s" : "0.0s"
        #expect(subscriber.timeline.dropFirst() == ["value(1)@\(due)"])
    }
}
