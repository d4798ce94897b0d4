import Testing

@testable import Ripple

@Suite("SubscriptionLifecycle")
struct SubscriptionLifecycleTests {
    /// A subscription that only has an identity.
    final class Probe: Subscription {
        func request(_ demand: Subscribers.Demand) {}
        func cancel() {}
    }

    /// A lifecycle with its subscriptions named by identity, so that two can be compared.
    enum Shape: Equatable {
        case awaiting
        case subscribed(ObjectIdentifier)
        case pending(ObjectIdentifier?)
        case terminal

        init(_ lifecycle: SubscriptionLifecycle) {
            switch lifecycle {
            case .awaitingSubscription: self = .awaiting
            case .subscribed(let subscription): self = .subscribed(ObjectIdentifier(subscription as AnyObject))
            case .pendingTerminal(let subscription):
                self = .pending(subscription.map { ObjectIdentifier($0 as AnyObject) })
            case .terminal: self = .terminal
            }
        }
    }

    /// Every state, the held subscription being `held`.
    static func everyState(holding held: Probe) -> [SubscriptionLifecycle] {
        [.awaitingSubscription, .subscribed(held), .pendingTerminal(held), .pendingTerminal(nil), .terminal]
    }

    static func id(_ probe: Probe) -> ObjectIdentifier { ObjectIdentifier(probe) }

    @Test func acceptTakesTheSubscriptionOnlyWhileAwaitingIt() {
        let held = Probe()
        let offered = Probe()
        for state in Self.everyState(holding: held) {
            var lifecycle = state
            let accepted = lifecycle.accept(offered)
            if case .awaitingSubscription = state {
                #expect(accepted)
                #expect(Shape(lifecycle) == .subscribed(Self.id(offered)))
            } else {
                #expect(!accepted)
                #expect(Shape(lifecycle) == Shape(state))
            }
        }
    }

    @Test func completeEndsEveryStateButTheEndOnce() {
        let held = Probe()
        let expected = [true, true, true, true, false]
        for (state, forwards) in zip(Self.everyState(holding: held), expected) {
            var lifecycle = state
            #expect(lifecycle.complete() == forwards)
            #expect(Shape(lifecycle) == .terminal)
        }
    }

    @Test func cancelEndsEveryStateAndReturnsOnlyTheLiveSubscription() {
        let held = Probe()
        let expected: [ObjectIdentifier?] = [nil, Self.id(held), nil, nil, nil]
        for (state, toCancel) in zip(Self.everyState(holding: held), expected) {
            var lifecycle = state
            #expect(lifecycle.cancel().map { ObjectIdentifier($0 as AnyObject) } == toCancel)
            #expect(Shape(lifecycle) == .terminal)
        }
    }

    @Test func queriesAnswerForEachState() {
        let held = Probe()
        let states = Self.everyState(holding: held)
        #expect(states.map(\.isAwaitingSubscription) == [true, false, false, false, false])
        #expect(states.map(\.isSubscribed) == [false, true, false, false, false])
        #expect(states.map(\.isTerminal) == [false, false, false, false, true])
        #expect(
            states.map { $0.subscription.map { ObjectIdentifier($0 as AnyObject) } } == [
                nil, Self.id(held), nil, nil, nil,
            ])
    }

    @Test func describesItselfAsCombinesMirrorsDo() {
        let held = Probe()
        let described = Self.everyState(holding: held).map(\.description)
        #expect(
            described == [
                "awaitingSubscription", "subscribed(\(held))", "pendingTerminal(\(held))", "pendingTerminal",
                "terminal",
            ])
    }

    @Test func aLifecycleMadeFromAFlagAndAnOptionalSubscription() {
        let held = Probe()
        #expect(Shape(SubscriptionLifecycle(awaiting: true, nil)) == .awaiting)
        #expect(Shape(SubscriptionLifecycle(awaiting: true, held)) == .awaiting)
        #expect(Shape(SubscriptionLifecycle(awaiting: false, held)) == .subscribed(Self.id(held)))
        #expect(Shape(SubscriptionLifecycle(awaiting: false, nil)) == .terminal)
    }
}
