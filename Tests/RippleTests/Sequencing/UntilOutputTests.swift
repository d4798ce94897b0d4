import Dispatch
import Testing

@testable import Ripple

private struct EquatablePublisher: Publisher, Equatable {
    typealias Output = Int
    typealias Failure = Never
    let id: Int
    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriber.receive(subscription: Subscriptions.empty)
        subscriber.receive(completion: .finished)
    }
}

/// How a subscriber records the subscription of `prefix(untilOutputFrom:)`: by its type's name, as it has no
/// description of its own (as in Combine).
private func prefixSubscription<Upstream: Publisher, Other: Publisher, Downstream: Subscriber>(
    _ upstream: Upstream, _ trigger: Other, _ subscriber: Downstream
) -> String where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
    String(reflecting: Publishers.PrefixUntilOutput<Upstream, Other>.Inner<Downstream>.self)
}

@Suite("prefix(untilOutputFrom:) (Publishers.PrefixUntilOutput)")
struct PrefixUntilOutputTests {
    @Test func republishesUntilTheTriggerEmitsThenCancelsAndFinishes() {
        let upstream = TestPublisher<Int, TestError>()
        let trigger = TestPublisher<String, Never>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(3), onValue: { _ in .max(2) })
        defer { subscriber.cancel() }
        let prefix = upstream.prefix(untilOutputFrom: trigger)
        #expect(prefix.upstream === upstream && prefix.other === trigger)
        prefix.subscribe(subscriber)
        #expect(subscriber.events == [.subscription(prefixSubscription(upstream, trigger, subscriber))])
        #expect(upstream.calls == [.request(.max(3))])
        #expect(trigger.calls == [.request(.max(1))])
        #expect(upstream.send(1) == .max(2))
        #expect(upstream.send(2) == .max(2))
        #expect(trigger.send("stop") == .none)
        #expect(upstream.send(3) == .none)
        #expect(trigger.send("again") == .none)
        upstream.send(completion: .finished)
        #expect(
            subscriber.events == [
                .subscription(prefixSubscription(upstream, trigger, subscriber)), .value(1), .value(2), .finished,
            ])
        #expect(upstream.calls == [.request(.max(3)), .cancel])
        #expect(trigger.calls == [.request(.max(1))])
    }

    @Test func upstreamCompletionPassesThroughAndCancelsTheTrigger() {
        let upstream = TestPublisher<Int, TestError>()
        let trigger = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
        upstream.send(1)
        upstream.send(completion: .failure(.oops))
        trigger.send(1)
        #expect(
            subscriber.events == [
                .subscription(prefixSubscription(upstream, trigger, subscriber)), .value(1), .failure(.oops),
            ])
        #expect(trigger.calls == [.request(.max(1)), .cancel])
        #expect(upstream.calls == [.request(.unlimited)])
    }

    /// As in Combine, a completion before the upstream's subscription (which only a broken upstream sends)
    /// ends the operator without passing anything on: the trigger is cancelled, and so is a late
    /// subscription.
    @Test func aCompletionBeforeTheSubscriptionCancelsTheTriggerAsInCombine() {
        let upstream = LatePublisher<Int, TestError>()
        let trigger = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
        upstream.send(completion: .finished)
        #expect(trigger.calls == [.request(.max(1)), .cancel])
        upstream.sendSubscription()
        #expect(trigger.send(1) == .none)
        #expect(upstream.subscription.calls == [.cancel])
        #expect(subscriber.events == [])
    }

    @Test func aTriggerThatCompletesWithoutAValueHasNoEffect() {
        let upstream = TestPublisher<Int, Never>()
        let trigger = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
        trigger.send(completion: .failure(.oops))
        trigger.send(5)
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(
            subscriber.events == [
                .subscription(prefixSubscription(upstream, trigger, subscriber)), .value(1), .finished,
            ])
        #expect(trigger.calls == [.request(.max(1))])
    }

    @Test func cancelCancelsBoth() throws {
        let upstream = TestPublisher<Int, Never>()
        let trigger = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
        subscriber.cancel()
        subscriber.cancel()
        try #require(subscriber.subscription).request(.max(42))
        upstream.send(1)
        trigger.send(1)
        #expect(upstream.calls == [.cancel])
        #expect(trigger.calls == [.request(.max(1)), .cancel])
        #expect(subscriber.events == [.subscription(prefixSubscription(upstream, trigger, subscriber))])
    }

    @Test func aTriggerBeforeTheUpstreamSubscribesStillGivesASubscriptionFirst() {
        let upstream = LatePublisher<Int, Never>()
        let trigger = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
        #expect(subscriber.events == [])
        trigger.send(1)
        #expect(subscriber.events == [.subscription(prefixSubscription(upstream, trigger, subscriber)), .finished])
        #expect(subscriber.orderViolations == 0)
        let link = TestPublisher<Int, Never>()
        upstream.subscriber?.receive(subscription: TestPublisher<Int, Never>.TestSubscription(publisher: link))
        #expect(link.calls == [.cancel])
        #expect(subscriber.events == [.subscription(prefixSubscription(upstream, trigger, subscriber)), .finished])
    }

    @Test func aTriggerDuringADeliveryFinishesAfterIt() {
        let upstream = TestPublisher<Int, Never>()
        let trigger = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(onValue: { [unowned trigger] value in
            if value == 2 { trigger.send(0) }
            return .max(1)
        })
        defer { subscriber.cancel() }
        upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
        #expect(upstream.send(1) == .max(1))
        #expect(upstream.send(2) == .none)
        #expect(upstream.send(3) == .none)
        #expect(
            subscriber.events == [
                .subscription(prefixSubscription(upstream, trigger, subscriber)), .value(1), .value(2), .finished,
            ])
        #expect(subscriber.orderViolations == 0)
        #expect(upstream.calls == [.request(.unlimited), .cancel])
    }

    @Test func cancelDuringADeliveryAfterTheTriggerSendsNothingMore() {
        let upstream = TestPublisher<Int, Never>()
        let trigger = TestPublisher<Int, Never>()
        var subscriber: TestSubscriber<Int, Never>?
        subscriber = TestSubscriber<Int, Never>(onValue: { [unowned trigger] _ in
            trigger.send(0)
            subscriber?.cancel()
            return .max(1)
        })
        upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber.unsafelyUnwrapped)
        upstream.send(1)
        #expect(subscriber?.events == [.subscription(prefixSubscription(upstream, trigger, subscriber!)), .value(1)])
        subscriber = nil
    }

    @Test func secondSubscriptionsAreCancelled() {
        let upstream = LatePublisher<Int, Never>()
        let trigger = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
        let links = (0..<4).map { _ in TestPublisher<Int, Never>() }
        upstream.subscriber?.receive(subscription: TestPublisher<Int, Never>.TestSubscription(publisher: links[0]))
        upstream.subscriber?.receive(subscription: TestPublisher<Int, Never>.TestSubscription(publisher: links[1]))
        trigger.subscriber?.receive(subscription: TestPublisher<Int, Never>.TestSubscription(publisher: links[2]))
        trigger.subscriber?.receive(subscription: TestPublisher<Int, Never>.TestSubscription(publisher: links[3]))
        #expect(links.map(\.calls) == [[.request(.unlimited)], [.cancel], [.request(.max(1))], [.cancel]])
    }

    @Test func theTriggerSubscriberSharesIdentityAndCustomisesNoReflectionAsInCombine() throws {
        let upstream = LatePublisher<Int, Never>()
        let trigger = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
        let upstreamSubscriber = try #require(upstream.erased)
        let triggerSubscriber = try #require(trigger.erased)
        #expect(upstreamSubscriber.combineIdentifier == triggerSubscriber.combineIdentifier)
        for subscriber in [upstreamSubscriber, triggerSubscriber] {
            #expect(!(subscriber is any CustomStringConvertible))
            #expect(!(subscriber is any CustomReflectable))
            #expect(!(subscriber is any CustomPlaygroundDisplayConvertible))
        }
        #expect(String(describing: upstreamSubscriber) == prefixSubscription(upstream, trigger, subscriber))
    }

    @Test func honoursDemandOneAtATime() {
        let subscriber = TestSubscriber<Int, Never>.oneAtATime()
        defer { subscriber.cancel() }
        SequencingSyncPublisher<Int, Never>(Array(0..<10_000)).prefix(untilOutputFrom: TestPublisher<Int, Never>())
            .subscribe(subscriber)
        #expect(subscriber.values.elementsEqual(0..<10_000))
        #expect(subscriber.completion == .finished)
        #expect(subscriber.demandViolations == 0)
    }

    @Test func aTriggerOnAnotherThreadNeverOverlapsADelivery() {
        for _ in 0..<200 {
            let upstream = TestPublisher<Int, Never>()
            let trigger = TestPublisher<Int, Never>()
            let subscriber = TestSubscriber<Int, Never>()
            upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 {
                    for value in 0..<100 { upstream.send(value) }
                } else {
                    trigger.send(0)
                }
            }
            #expect(subscriber.orderViolations == 0)
            #expect(subscriber.completion == .finished)
            #expect(subscriber.events.last == .finished)
            #expect(subscriber.values.elementsEqual(0..<subscriber.values.count))
        }
    }
}

@Suite("drop(untilOutputFrom:) (Publishers.DropUntilOutput)")
struct DropUntilOutputTests {
    @Test func ignoresValuesUntilTheOtherEmits() {
        let upstream = TestPublisher<Int, TestError>()
        let other = TestPublisher<String, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(4), onValue: { .max($0) })
        defer { subscriber.cancel() }
        let drop = upstream.drop(untilOutputFrom: other)
        #expect(drop.upstream === upstream && drop.other === other)
        drop.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("DropUntilOutput")])
        #expect(upstream.calls == [.request(.max(4))])
        #expect(other.calls == [.request(.max(1))])
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .none)
        #expect(other.send("go") == .none)
        #expect(upstream.send(3) == .max(3))
        other.send(completion: .failure(.oops))
        #expect(upstream.send(4) == .max(4))
        upstream.send(completion: .finished)
        upstream.send(completion: .failure(.oops))
        #expect(subscriber.events == [.subscription("DropUntilOutput"), .value(3), .value(4), .finished])
        #expect(upstream.calls == [.request(.max(4))])
        #expect(other.calls == [.request(.max(1))])
    }

    @Test func theOthersCompletionWithoutAValueEndsTheStreamOnce() {
        let upstream = TestPublisher<Int, TestError>()
        let other = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(100))
        defer { subscriber.cancel() }
        upstream.drop(untilOutputFrom: other).subscribe(subscriber)
        upstream.send(1)
        other.send(completion: .failure(.oops))
        other.send(completion: .finished)
        upstream.send(completion: .finished)
        #expect(upstream.send(2) == .none)
        #expect(subscriber.events == [.subscription("DropUntilOutput"), .failure(.oops)])
        #expect(upstream.calls == [.request(.max(100)), .cancel])
        #expect(other.calls == [.request(.max(1))])
    }

    /// As in Combine, once the other publisher has emitted, its subscription is let go (not cancelled), and a
    /// new subscription it sends (which only a broken publisher does) is taken as the first was: asked for one
    /// value, and cancelled with the rest.
    @Test func theOtherTakesANewSubscriptionAfterItEmittedAsInCombine() throws {
        let upstream = TestPublisher<Int, TestError>()
        let other = LatePublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2))
        defer { subscriber.cancel() }
        upstream.drop(untilOutputFrom: other).subscribe(subscriber)
        other.sendSubscription()
        let extra = RecordingSubscription()
        other.sendSubscription(extra)
        #expect(other.send(1) == .none)
        let again = RecordingSubscription()
        other.sendSubscription(again)
        other.send(completion: .finished)
        #expect(upstream.send(7) == .none)
        let afterItsCompletion = RecordingSubscription()
        other.sendSubscription(afterItsCompletion)
        subscriber.cancel()
        #expect(subscriber.events == [.subscription("DropUntilOutput"), .value(7)])
        #expect(other.subscription.calls == [.request(.max(1))])
        #expect(extra.calls == [.cancel])
        #expect(again.calls == [.request(.max(1))])
        #expect(afterItsCompletion.calls == [.request(.max(1)), .cancel])
        #expect(upstream.calls == [.request(.max(2)), .cancel])
    }

    /// As in Combine, a completion of the upstream before its subscription passes on (the downstream already
    /// has its subscription) and cancels the other publisher; a late subscription is cancelled.
    @Test func aCompletionBeforeTheUpstreamsSubscriptionPassesOnAsInCombine() {
        let upstream = LatePublisher<Int, Never>()
        let other = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        upstream.drop(untilOutputFrom: other).subscribe(subscriber)
        upstream.send(completion: .finished)
        upstream.sendSubscription()
        #expect(subscriber.events == [.subscription("DropUntilOutput"), .finished])
        #expect(other.calls == [.request(.max(1)), .cancel])
        #expect(upstream.subscription.calls == [.cancel])
    }

    @Test func upstreamCompletionCancelsTheOther() {
        let upstream = TestPublisher<Int, TestError>()
        let other = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        upstream.drop(untilOutputFrom: other).subscribe(subscriber)
        upstream.send(completion: .finished)
        other.send(completion: .finished)
        #expect(subscriber.events == [.subscription("DropUntilOutput"), .finished])
        #expect(other.calls == [.request(.max(1)), .cancel])
    }

    @Test func subscribesDownstreamFirstThenTheOtherThenTheUpstream() throws {
        let upstream = LatePublisher<Int, Never>()
        let other = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(10))
        defer { subscriber.cancel() }
        upstream.drop(untilOutputFrom: other).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("DropUntilOutput")])
        try #require(subscriber.subscription).request(.max(4))
        let upstreamLink = TestPublisher<Int, Never>()
        let otherLink = TestPublisher<Int, Never>()
        other.subscriber?.receive(subscription: TestPublisher<Int, Never>.TestSubscription(publisher: otherLink))
        upstream.subscriber?.receive(subscription: TestPublisher<Int, Never>.TestSubscription(publisher: upstreamLink))
        #expect(upstreamLink.calls == [.request(.max(14))])
        #expect(otherLink.calls == [.request(.max(1))])
        let upstreamSubscriber = try #require(upstream.erased)
        let otherSubscriber = try #require(other.erased)
        #expect(upstreamSubscriber.combineIdentifier == otherSubscriber.combineIdentifier)
        #expect(String(describing: otherSubscriber) == "DropUntilOutput")
        #expect(
            (otherSubscriber as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
                == "DropUntilOutput")
        #expect((otherSubscriber as? any CustomReflectable)?.customMirror.children.isEmpty == true)
        let extra = TestPublisher<Int, Never>()
        other.subscriber?.receive(subscription: TestPublisher<Int, Never>.TestSubscription(publisher: extra))
        upstream.subscriber?.receive(subscription: TestPublisher<Int, Never>.TestSubscription(publisher: extra))
        #expect(extra.calls == [.cancel, .cancel])
    }

    @Test func cancelCancelsBothAndLaterSubscriptions() throws {
        let upstream = LatePublisher<Int, Never>()
        let other = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
        defer { subscriber.cancel() }
        upstream.drop(untilOutputFrom: other).subscribe(subscriber)
        subscriber.cancel()
        subscriber.cancel()
        try #require(subscriber.subscription).request(.max(10))
        let link = TestPublisher<Int, Never>()
        upstream.subscriber?.receive(subscription: TestPublisher<Int, Never>.TestSubscription(publisher: link))
        other.send(1)
        _ = upstream.subscriber?.receive(5)
        upstream.subscriber?.receive(completion: .finished)
        #expect(link.calls == [.cancel])
        #expect(other.calls == [.request(.max(1)), .cancel])
        #expect(subscriber.events == [.subscription("DropUntilOutput")])
    }

    @Test func honoursDemandOneAtATime() {
        let upstream = SequencingSyncPublisher<Int, Never>(Array(0..<10_000))
        let other = SequencingSyncPublisher<Int, Never>([1])
        let subscriber = TestSubscriber<Int, Never>.oneAtATime()
        defer { subscriber.cancel() }
        upstream.drop(untilOutputFrom: other).subscribe(subscriber)
        #expect(subscriber.values.elementsEqual(0..<10_000))
        #expect(subscriber.completion == .finished)
        #expect(subscriber.demandViolations == 0)
        #expect(
            EquatablePublisher(id: 1).drop(untilOutputFrom: EquatablePublisher(id: 2))
                == EquatablePublisher(id: 1).drop(untilOutputFrom: EquatablePublisher(id: 2)))
    }

    @Test func concurrentTriggerAndValues() {
        for _ in 0..<200 {
            let upstream = TestPublisher<Int, Never>()
            let other = TestPublisher<Int, Never>()
            let subscriber = TestSubscriber<Int, Never>()
            upstream.drop(untilOutputFrom: other).subscribe(subscriber)
            DispatchQueue.concurrentPerform(iterations: 3) { index in
                switch index {
                case 0: for value in 0..<100 { upstream.send(value) }
                case 1: other.send(0)
                default: other.send(completion: .finished)
                }
            }
            upstream.send(completion: .finished)
            #expect(subscriber.orderViolations == 0)
            #expect(subscriber.completion == .finished)
            let values = subscriber.values
            #expect(values == Array((100 - values.count)..<100))
        }
    }
}
