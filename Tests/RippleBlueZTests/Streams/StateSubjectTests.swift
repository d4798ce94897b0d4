import Ripple
import Testing

@testable import RippleBlueZ

/// A state stream's guarantees under a subscriber that releases one value at a time while the state keeps
/// changing: the current value first, coalescing to the latest, never a stale last value.
@Suite struct StateSubjectTests {
    @Test func aDemandOfNothingTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let state = StateSubject<Int, Never>(7)
            let slow = SlowSubscriber<Int, Never>()
            state.subscribe(slow)
            slow.release(0)
        }
        #if DEBUG
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains("API Violation: demand must not be zero"), "\(output.prefix(600))")
        #else
        _ = result
        #endif
    }

    @Test func aNewSubscriberGetsTheCurrentValueOnItsFirstDemand() {
        let state = StateSubject<Int, Never>(7)
        let slow = SlowSubscriber<Int, Never>()
        state.subscribe(slow)
        #expect(slow.values == [])
        slow.release()
        #expect(slow.values == [7])
        let sink = SlowSubscriber<Int, Never>(initialDemand: .unlimited)
        state.subscribe(sink)
        #expect(sink.values == [7])
        slow.cancel()
        sink.cancel()
        #expect(state.subscriptionCount == 0)
    }

    @Test func underSlowDemandValuesCoalesceToTheLatest() {
        let state = StateSubject<Int, Never>(0)
        let slow = SlowSubscriber<Int, Never>()
        state.subscribe(slow)
        slow.release()
        for value in 1...5 { state.send(value) }
        #expect(slow.values == [0])
        slow.release()
        #expect(slow.values == [0, 5])
        state.send(6)
        state.send(7)
        slow.release()
        #expect(slow.values == [0, 5, 7])
        // With demand outstanding, the next change goes out at once.
        slow.release()
        #expect(slow.values == [0, 5, 7])
        state.send(8)
        #expect(slow.values == [0, 5, 7, 8])
        slow.cancel()
    }

    @Test func aChangeBackToWhatTheSubscriberHasIsNotDeliveredAgain() {
        let state = StateSubject<Bool, Never>(false)
        let slow = SlowSubscriber<Bool, Never>()
        state.subscribe(slow)
        slow.release()
        state.send(true)
        state.send(false)
        slow.release()
        #expect(slow.values == [false])
        state.send(false)
        #expect(slow.values == [false])
        state.send(true)
        #expect(slow.values == [false, true])
        slow.cancel()
    }

    @Test func aChangeMadeWhileTheSubscriberIsBusyIsDeliveredAfter() {
        let state = StateSubject<Int, Never>(0)
        let busy = ReentrantSender(state)
        state.subscribe(busy.subscriber)
        busy.subscriber.release(3)
        // Receiving 0, the subscriber itself sets 1 then 2: it is then given 2, the latest.
        #expect(busy.subscriber.values == [0, 2])
        #expect(state.value == 2)
        busy.subscriber.cancel()
    }

    @Test func aChangeMadeWhileTheSubscriptionIsHandedOverIsDelivered() {
        // The first value goes out while the subject still hands the subscription over (the subscriber asks
        // at once); a change made then, as another thread may, is delivered as soon as the handover ends.
        let state = StateSubject<Int, Never>(0)
        let early = SlowSubscriber<Int, Never>(
            initialDemand: .unlimited,
            onValue: { value in
                if value == 0 { state.send(1) }
            })
        state.subscribe(early)
        #expect(early.values == [0, 1])
        state.send(2)
        #expect(early.values == [0, 1, 2])
        early.cancel()
        #expect(state.subscriptionCount == 0)
    }

    @Test func theCompletionComesAfterTheLatestValueNotYetDelivered() {
        let state = StateSubject<Int, BluetoothError>(0)
        let slow = SlowSubscriber<Int, BluetoothError>()
        state.subscribe(slow)
        slow.release()
        state.send(1)
        state.send(completion: .failure(BluetoothError(.bluetoothUnavailable, "gone")))
        state.send(2)
        #expect(slow.completion == nil)
        slow.release()
        #expect(slow.values == [0, 1])
        #expect(slow.completion == .failure(BluetoothError(.bluetoothUnavailable, "gone")))
        let late = SlowSubscriber<Int, BluetoothError>(initialDemand: .unlimited)
        state.subscribe(late)
        #expect(late.values == [])
        #expect(late.completion == .failure(BluetoothError(.bluetoothUnavailable, "gone")))
        #expect(state.subscriptionCount == 0)
    }

    @Test func aCompletionWithNothingNewGoesOutWithoutDemand() {
        let state = StateSubject<Int, Never>(0)
        let slow = SlowSubscriber<Int, Never>()
        state.subscribe(slow)
        slow.release()
        state.send(completion: .finished)
        #expect(slow.values == [0])
        #expect(slow.completion == .finished)
    }

    @Test func valuesComparedByTheGivenRuleAreNotRepeated() {
        let state = StateSubject<[Int], Never>([1], isDuplicate: { $0.count == $1.count })
        let slow = SlowSubscriber<[Int], Never>(initialDemand: .unlimited)
        state.subscribe(slow)
        state.send([2])
        state.send([2, 3])
        #expect(slow.values == [[1], [2, 3]])
        slow.cancel()
    }
}

/// A subscriber that, receiving the state's first value, changes the state twice (re-entrantly).
private final class ReentrantSender: Sendable {
    let subscriber: SlowSubscriber<Int, Never>

    init(_ state: StateSubject<Int, Never>) {
        subscriber = SlowSubscriber(onValue: { value in
            guard value == 0 else { return }
            state.send(1)
            state.send(2)
        })
    }
}
