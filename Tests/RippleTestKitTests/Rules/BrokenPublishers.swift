import RippleTestKit

/// Publishers that each break one rule on purpose, for the checker to catch.
enum BrokenPublishers {
    /// Sends its values as soon as it is subscribed, whatever was requested (breaks §1.1).
    struct SendsWithoutDemand: Publisher {
        typealias Output = Int
        typealias Failure = Never

        func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
            subscriber.receive(subscription: Subscriptions.empty)
            for value in 1...3 { _ = subscriber.receive(value) }
            subscriber.receive(completion: .finished)
        }
    }

    /// Answers the first request with one value and a completion, then one more value (breaks §1.7).
    struct SendsAfterCompletion: Publisher {
        typealias Output = Int
        typealias Failure = Never

        func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
            subscriber.receive(
                subscription: OnFirstRequest {
                    _ = subscriber.receive(1)
                    subscriber.receive(completion: .finished)
                    _ = subscriber.receive(2)
                })
        }
    }

    /// Sends a value before it hands over its subscription (breaks §1.9).
    struct SendsBeforeSubscription: Publisher {
        typealias Output = Int
        typealias Failure = Never

        func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
            _ = subscriber.receive(0)
            subscriber.receive(subscription: Subscriptions.empty)
        }
    }

    /// Delivers each requested value inside `request`, even when that request came from inside a delivery
    /// (breaks §3.3: a subscriber asking for one more in each value makes the stack grow with each value).
    struct RecursesOnRequest: Publisher {
        typealias Output = Int
        typealias Failure = Never

        func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
            subscriber.receive(subscription: Recursing(subscriber))
        }

        private final class Recursing<S: Subscriber>: Subscription, @unchecked Sendable where S.Input == Int {
            let subscriber: S
            var next = 0
            var cancelled = false
            init(_ subscriber: S) { self.subscriber = subscriber }
            func request(_ demand: Subscribers.Demand) {
                for _ in 0..<(demand.max ?? 100) where next < 100 && !cancelled {
                    next += 1
                    _ = subscriber.receive(next)
                }
            }
            func cancel() { cancelled = true }
        }
    }

    /// A ticker on a virtual-time scheduler that sends one value per second while demand is outstanding,
    /// and ignores cancel (breaks §1.8 and §3.6).
    struct IgnoresCancel: Publisher {
        typealias Output = Int
        typealias Failure = Never
        let scheduler: VirtualTimeScheduler

        func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
            let ticker = Ticker(subscriber)
            subscriber.receive(subscription: ticker)
            ticker.timer = scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1)), interval: .seconds(1)) {
                [weak ticker] in ticker?.tick()
            }
        }

        private final class Ticker<S: Subscriber>: Subscription, @unchecked Sendable where S.Input == Int {
            let subscriber: S
            var demand = Subscribers.Demand.none
            var sent = 0
            var timer: (any Cancellable)?
            init(_ subscriber: S) { self.subscriber = subscriber }
            func request(_ demand: Subscribers.Demand) { self.demand += demand }
            func cancel() {}
            func tick() {
                guard demand > .none else { return }
                demand -= 1
                sent += 1
                _ = subscriber.receive(sent)
            }
        }
    }

    /// A subscription that runs `action` on its first request and ignores the rest.
    private final class OnFirstRequest: Subscription, @unchecked Sendable {
        var action: (() -> Void)?
        init(_ action: @escaping () -> Void) { self.action = action }
        func request(_ demand: Subscribers.Demand) {
            let run = action
            action = nil
            run?()
        }
        func cancel() { action = nil }
    }
}
