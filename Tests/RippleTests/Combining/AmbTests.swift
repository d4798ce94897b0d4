import Foundation
import Testing

@testable import Ripple

@Suite("Amb")
struct AmbTests {
    typealias Source = TestPublisher<Int, TestError>

    @Test func aDemandOfNothingTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
            Publishers.Amb(TestPublisher<Int, TestError>(), TestPublisher<Int, TestError>()).subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
        expectTrap(result, saying: TrapMessage.zeroDemand)
    }

    @Test func theFirstToSendAValueWinsAndTheOthersAreCancelled() {
        let a = Source()
        let b = Source()
        let c = Source()
        var losersCancelledBeforeTheFirstValue = false
        let subscriber = TestSubscriber<Int, TestError>(onValue: { [unowned a, unowned c] value in
            if value == 1 { losersCancelledBeforeTheFirstValue = a.isCancelled && c.isCancelled }
            return .none
        })
        defer { subscriber.cancel() }
        Publishers.Amb(a, b, c).subscribe(subscriber)
        #expect([a, b, c].allSatisfy { $0.calls == [.request(.unlimited)] })

        b.send(1)
        a.send(666)
        c.send(completion: .finished)
        b.send(2)
        b.send(completion: .finished)
        b.send(3)
        #expect(subscriber.events == [.subscription("Amb"), .value(1), .value(2), .finished])
        #expect(losersCancelledBeforeTheFirstValue)
        #expect(a.calls == [.request(.unlimited), .cancel])
        #expect(b.calls == [.request(.unlimited)])
        #expect(c.calls == [.request(.unlimited), .cancel])
    }

    @Test(arguments: [Subscribers.Completion<TestError>.finished, .failure(.oops)])
    func aCompletionWinsToo(completion: Subscribers.Completion<TestError>) {
        let a = Source()
        let b = Source()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        a.amb(b).subscribe(subscriber)
        b.send(completion: completion)
        a.send(1)
        a.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Amb"), .completion(completion)])
        #expect(a.calls == [.request(.unlimited), .cancel])
        #expect(b.calls == [.request(.unlimited)])
    }

    @Test func demandGoesToEveryContenderUntilThereIsAWinnerThenOnlyToTheWinner() throws {
        let a = Source()
        let b = Source()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1), onValue: { _ in .max(4) })
        defer { subscriber.cancel() }
        a.amb(b).subscribe(subscriber)
        subscriber.request(.max(2))
        #expect(a.calls == [.request(.max(1)), .request(.max(2))])
        #expect(b.calls == [.request(.max(1)), .request(.max(2))])

        #expect(a.send(1) == .max(4), "the winner's values and the downstream's answers pass through")
        subscriber.request(.max(3))
        #expect(a.calls == [.request(.max(1)), .request(.max(2)), .request(.max(3))])
        #expect(b.calls == [.request(.max(1)), .request(.max(2)), .cancel])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func aLateContenderIsAskedForEverythingRequestedSoFar() throws {
        var captured: AnySubscriber<Int, TestError>?
        let late = CombiningRecordingPublisher<Int, TestError>(sendsSubscription: false) { captured = $0 }
        let early = Source()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2))
        defer { subscriber.cancel() }
        Publishers.Amb([late.eraseToAnyPublisher(), early.eraseToAnyPublisher()]).subscribe(subscriber)
        subscriber.request(.max(3))
        let contender = try #require(captured)
        let source = Source()
        source.subscribe(contender)
        #expect(source.calls == [.request(.max(5))])
        let extra = Source()
        extra.subscribe(contender)
        #expect(extra.calls == [.cancel], "a contender takes one subscription only")
        source.send(1)
        #expect(early.calls == [.request(.max(2)), .request(.max(3)), .cancel])
        #expect(subscriber.values == [1])
    }

    @Test func aContenderSubscribingAfterTheWinIsCancelled() throws {
        var captured: AnySubscriber<Int, TestError>?
        let late = CombiningRecordingPublisher<Int, TestError>(sendsSubscription: false) { captured = $0 }
        let early = Source()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        Publishers.Amb([early.eraseToAnyPublisher(), late.eraseToAnyPublisher()]).subscribe(subscriber)
        early.send(1)
        let latecomer = Source()
        latecomer.subscribe(try #require(captured))
        #expect(latecomer.calls == [.cancel])
        #expect(subscriber.values == [1])
    }

    @Test func withoutContendersItFinishesAtOnce() {
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        Publishers.Amb<Source>([]).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Amb"), .finished])

        let cancelling = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { cancelling.cancel() }
        let cancelFirst = AnySubscriber<Int, TestError>(
            receiveSubscription: { $0.cancel() },
            receiveCompletion: { cancelling.receive(completion: $0) }
        )
        Publishers.Amb<Source>().subscribe(cancelFirst)
        #expect(cancelling.events == [], "nothing after cancel")
    }

    @Test func cancelBeforeAWinCancelsEveryContenderOnce() throws {
        let a = Source()
        let b = Source()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        a.amb(b).subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        subscription.cancel()
        subscription.cancel()
        subscription.request(.max(1))
        a.send(1)
        b.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Amb")])
        #expect(a.calls == [.request(.unlimited), .cancel])
        #expect(b.calls == [.request(.unlimited), .cancel])
    }

    @Test func cancelAfterAWinCancelsTheWinner() throws {
        let a = Source()
        let b = Source()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        a.amb(b).subscribe(subscriber)
        a.send(1)
        try #require(subscriber.subscription).cancel()
        a.send(2)
        #expect(a.calls == [.request(.unlimited), .cancel])
        #expect(b.calls == [.request(.unlimited), .cancel])
        #expect(subscriber.events == [.subscription("Amb"), .value(1)])
    }

    @Test func waysOfBuildingIt() {
        let a = Source()
        let b = Source()
        let c = Source()
        let ids = { (publishers: [Source]) in publishers.map(ObjectIdentifier.init) }
        let pair = a.amb(b)
        #expect(type(of: pair) == Publishers.Amb<Source>.self, "the same-type form wins over the erasing one")
        #expect(ids(pair.publishers) == ids([a, b]))
        let three: Publishers.Amb<Source> = a.amb(b, c)
        #expect(ids(three.publishers) == ids([a, b, c]))
        let appended: Publishers.Amb<Source> = pair.amb(c)
        #expect(ids(appended.publishers) == ids([a, b, c]))
        let fromSequence = Publishers.Amb([a, b, c].lazy.filter { $0 !== b })
        #expect(ids(fromSequence.publishers) == ids([a, c]))

        let other = TestPublisher<Int, TestError>().eraseToAnyPublisher()
        let mixed: Publishers.Amb<AnyPublisher<Int, TestError>> = CombiningRecordingPublisher<Int, TestError>(
            sendsSubscription: false
        ) { _ in }.amb(other)
        #expect(mixed.publishers.count == 2)
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        a.amb(Publishers.Amb(c)).subscribe(subscriber)
        c.send(5)
        #expect(subscriber.values == [5])
    }

    @Test func equatableWhenTheContendersAre() {
        #expect(
            Publishers.Amb(CombiningEquatablePublisher(id: 1), CombiningEquatablePublisher(id: 2))
                == Publishers.Amb([CombiningEquatablePublisher(id: 1), CombiningEquatablePublisher(id: 2)]))
        #expect(
            Publishers.Amb(CombiningEquatablePublisher(id: 1)) != Publishers.Amb(CombiningEquatablePublisher(id: 2)))
    }

    @Test func describesItselfAsAmb() throws {
        var captured: AnySubscriber<Int, TestError>?
        let recorder = CombiningRecordingPublisher<Int, TestError>(sendsSubscription: false) { captured = $0 }
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        recorder.amb(Source()).subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "Amb")
        #expect((subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Amb")
        #expect((subscription as? any CustomReflectable)?.customMirror.children.isEmpty == true)
        let contender = try #require(captured)
        #expect(contender.description == "Amb")
        #expect(contender.playgroundDescription as? String == "Amb")
        #expect(contender.customMirror.children.first?.label == "parentSubscription")
        #expect(contender.customMirror.children.first?.value as? CombineIdentifier == subscription.combineIdentifier)
    }

    // MARK: Concurrency

    @Test func contendersRacingOnManyThreadsLeaveExactlyOneWinner() {
        for _ in 0..<20 {
            let contenders = 4
            let perContender = 300
            let done = DispatchSemaphore(value: 0)
            let subscriber = TestSubscriber<Int, Never>(
                initialDemand: .max(1), onValue: { _ in .max(1) }, onCompletion: { _ in done.signal() }
            )
            let publishers = (0..<contenders).map { contender in
                CombiningPacedPublisher<Int, Never>(
                    Array((contender * perContender)..<(contender * perContender + perContender))
                )
            }
            Publishers.Amb(publishers).subscribe(subscriber)
            #expect(combiningAwait(done))
            let values = subscriber.values
            let winner = (values.first ?? 0) / perContender
            #expect(values == Array((winner * perContender)..<(winner * perContender + perContender)))
            #expect(subscriber.demandViolations == 0)
            #expect(subscriber.orderViolations == 0)
            #expect(subscriber.events.last == .finished)
        }
    }

    @Test func concurrentRequestsAndCancelWhileRacingAreSafe() {
        for round in 0..<50 {
            let publishers = (0..<3).map { contender in
                CombiningPacedPublisher<Int, Never>(Array((contender * 100)..<(contender * 100 + 100)))
            }
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            Publishers.Amb(publishers).subscribe(subscriber)
            DispatchQueue.concurrentPerform(iterations: 3) { worker in
                for _ in 0..<30 {
                    subscriber.request(.max(1))
                }
                if worker == 2, round.isMultiple(of: 2) { subscriber.cancel() }
            }
            let values = subscriber.values
            let winner = (values.first ?? 0) / 100
            #expect(values.allSatisfy { $0 / 100 == winner })
            #expect(values == values.sorted())
            #expect(subscriber.demandViolations == 0)
            subscriber.cancel()
        }
    }
}
