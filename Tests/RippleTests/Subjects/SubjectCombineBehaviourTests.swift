import Testing

@testable import Ripple

/// Combine's behaviour of the two subjects towards their upstream subscriptions, their subscribers'
/// requests during `receive(subscription:)`, the value after completion, and their subscriptions'
/// reflection.
@Suite("Subjects: Combine's upstream requests, value and reflection")
struct SubjectCombineBehaviourTests {
    @Test func currentValueSubjectRequestsEveryUpstreamAtOnce() {
        let first = RecordingSubscription()
        let subject = CurrentValueSubject<Int, Never>(1)
        subject.send(subscription: first)
        #expect(first.calls == [.request(.unlimited)])
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        defer { subscriber.cancel() }
        subject.subscribe(subscriber)
        #expect(first.calls == [.request(.unlimited)])
        subject.send(subscription: first)
        let second = RecordingSubscription()
        subject.send(subscription: second)
        #expect(first.calls == [.request(.unlimited), .request(.unlimited)])
        #expect(second.calls == [.request(.unlimited)])
        #expect(subscriber.events == [.subscription("CurrentValueSubject"), .value(1)])
        subscriber.cancel()
    }

    @Test func passthroughSubjectRequestsOnceAnySubscriberAsks() {
        let first = RecordingSubscription()
        let subject = PassthroughSubject<Int, Never>()
        subject.send(subscription: first)
        let idle = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { idle.cancel() }
        subject.subscribe(idle)
        #expect(first.calls == [])
        let asking = TestSubscriber<Int, Never>(initialDemand: .max(1))
        defer { asking.cancel() }
        subject.subscribe(asking)
        #expect(first.calls == [.request(.unlimited)])
        asking.request(.max(1))
        idle.request(.max(1))
        let second = RecordingSubscription()
        subject.send(subscription: second)
        #expect(first.calls == [.request(.unlimited)])
        #expect(second.calls == [.request(.unlimited)])
        idle.cancel()
        asking.cancel()
    }

    @Test func bothCancelTheirUpstreamsWhenTheyGoAway() {
        let subscription = RecordingSubscription()
        do {
            let subject = CurrentValueSubject<Int, Never>(42)
            for _ in 0..<3 { subject.send(subscription: subscription) }
        }
        #expect(
            subscription.calls == Array(repeating: .request(.unlimited), count: 3) + Array(repeating: .cancel, count: 3)
        )
    }

    @Test func aLiveSubscriptionKeepsItsSubjectAlive() {
        let upstream = RecordingSubscription()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        weak var weakSubject: PassthroughSubject<Int, Never>?
        do {
            let subject = PassthroughSubject<Int, Never>()
            weakSubject = subject
            subject.send(subscription: upstream)
            subject.subscribe(subscriber)
        }
        #expect(weakSubject != nil)
        #expect(upstream.calls == [.request(.unlimited)])
        subscriber.cancel()
        #expect(weakSubject == nil)
        #expect(upstream.calls == [.request(.unlimited), .cancel])
    }

    /// As in Combine, a subject attached with subscribe(_:) (as share() and multicast attach theirs) ignores
    /// a completion that comes before the upstream's subscription, and goes on with a subscription that comes
    /// later.
    @Test func aCompletionBeforeTheUpstreamsSubscriptionIsIgnored() {
        let late = LatePublisher<Int, Never>()
        let subject = PassthroughSubject<Int, Never>()
        let relayed = TestSubscriber<Int, Never>()
        defer { relayed.cancel() }
        subject.subscribe(relayed)
        let cancellable = late.subscribe(subject)
        late.send(completion: .finished)
        #expect(relayed.events == [.subscription("PassthroughSubject")])
        late.sendSubscription()
        #expect(late.subscription.calls == [.request(.unlimited)])
        #expect(late.send(1) == .none)
        late.send(completion: .finished)
        #expect(relayed.events == [.subscription("PassthroughSubject"), .value(1), .finished])
        withExtendedLifetime(cancellable) {}
    }

    @Test func settingTheValueAfterCompletionKeepsItWhileSendDoesNot() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        subject.subscribe(subscriber)
        subject.send(completion: .finished)
        subject.send(7)
        #expect(subject.value == 0)
        subject.value = 42
        #expect(subject.value == 42)
        #expect(subscriber.events == [.subscription("CurrentValueSubject"), .value(0), .finished])
    }

    @Test func theCurrentValueArrivesInsideReceiveSubscriptionWhenRequestedThere() {
        final class Recorder: Subscriber, @unchecked Sendable {
            typealias Input = Int
            typealias Failure = Never
            let subject: CurrentValueSubject<Int, Never>
            var log: [String] = []
            var subscriptions: [any Subscription] = []
            init(_ subject: CurrentValueSubject<Int, Never>) { self.subject = subject }
            func receive(subscription: any Subscription) {
                subscription.request(.unlimited)
                log.append("subscription")
                subscriptions.append(subscription)
                // Subscribes again from inside, as Combine's own tests do: each time the value comes first.
                if subscriptions.count < 3 { subject.subscribe(self) }
            }
            func receive(_ input: Int) -> Subscribers.Demand {
                log.append("value(\(input))")
                return .none
            }
            func receive(completion: Subscribers.Completion<Never>) { log.append("completion") }
        }
        let subject = CurrentValueSubject<Int, Never>(112)
        let recorder = Recorder(subject)
        subject.subscribe(recorder)
        #expect(
            recorder.log == ["value(112)", "subscription", "value(112)", "subscription", "value(112)", "subscription"])
        subject.send(1)
        #expect(recorder.log.suffix(3) == ["value(1)", "value(1)", "value(1)"])
        for subscription in recorder.subscriptions { subscription.cancel() }
    }

    @Test(arguments: ["CurrentValueSubject", "PassthroughSubject"])
    func subscriptionsReflectTheirSubjectSubscriberAndDemand(name: String) throws {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(12))
        defer { subscriber.cancel() }
        let subject: any Subject<Int, Never> =
            name == "CurrentValueSubject" ? CurrentValueSubject<Int, Never>(1) : PassthroughSubject<Int, Never>()
        subject.subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == name)
        #expect((subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == name)
        var mirror = Mirror(reflecting: subscription)
        #expect(mirror.children.map(\.label) == ["parent", "downstream", "demand", "subject"])
        var values = mirror.children.map { "\($0.value)" }
        #expect(values[0].contains(name) && values[3].contains(name))
        #expect(values[1].contains("TestSubscriber"))
        #expect(values[2] == (name == "CurrentValueSubject" ? "max(11)" : "max(12)"))
        subscription.cancel()
        subscription.request(.max(3))
        mirror = Mirror(reflecting: subscription)
        values = mirror.children.map { "\($0.value)" }
        #expect(values == ["nil", "nil", name == "CurrentValueSubject" ? "max(11)" : "max(12)", "nil"])
    }
}
