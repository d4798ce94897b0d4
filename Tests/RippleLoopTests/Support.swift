import Dispatch
import Ripple
import Synchronization
import Testing
@testable import RippleLoop

/// A thread-safe list of things that happened, in order.
final class Recorder<Element: Sendable>: Sendable {
    private let entries = Mutex<[Element]>([])

    func append(_ element: Element) {
        entries.withLock { $0.append(element) }
    }

    var all: [Element] {
        entries.withLock { $0 }
    }

    var count: Int {
        entries.withLock { $0.count }
    }
}

/// An object whose release the tests can observe (to check that dropped closures are freed).
final class ReleaseSentinel: Sendable {
    private let released: Recorder<String>
    private let name: String

    init(_ name: String, releases: Recorder<String>) {
        self.name = name
        released = releases
    }

    deinit {
        released.append(name)
    }
}

/// A closure-free box for values that cross threads in a test.
final class Box<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    init(_ value: Value) {
        storage = Mutex(value)
    }

    var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    func update<R: Sendable>(_ body: (inout Value) -> R) -> R {
        storage.withLock { body(&$0) }
    }
}

extension EventLoop {
    /// Waits until the loop thread has run everything scheduled so far (one trip through its queue).
    func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            schedule { continuation.resume() }
        }
    }

    /// Runs `body` on the loop thread and returns its result.
    func onLoop<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            schedule { continuation.resume(returning: body()) }
        }
    }

    /// Blocks the loop thread (inside a scheduled closure) until the returned semaphore is signalled,
    /// then runs `afterRelease` there; returns once the loop thread is blocked, so that nothing else
    /// (no timer in particular) can run on the loop until the test releases it.
    func hold(then afterRelease: @escaping @Sendable () -> Void = {}) async -> DispatchSemaphore {
        let release = DispatchSemaphore(value: 0)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            schedule {
                continuation.resume()
                release.wait()
                afterRelease()
            }
        }
        return release
    }

    /// Waits for `delay` using a loop timer (not a sleep): an upper bound of "nothing more happened".
    func wait(_ delay: SchedulerTimeType.Stride) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            schedule(after: now.advanced(by: delay)) { continuation.resume() }
        }
    }
}

/// A subscription handed between threads in a test (Ripple's subscriptions are thread-safe).
struct SubscriptionReference: @unchecked Sendable {
    let subscription: any Subscription
}

/// A subscriber that records what it receives and requests what the test tells it to.
final class PollRecorder: Subscriber, Sendable {
    typealias Input = EventLoop.PollEvents
    typealias Failure = EventLoopError

    enum Event: Equatable, Sendable {
        case value(EventLoop.PollEvents)
        case finished
        case failure(EventLoopError)
    }

    let events = Recorder<Event>()
    let threads = Recorder<Bool>()
    private let subscriptionBox = Box<SubscriptionReference?>(nil)
    private let initialDemand: Subscribers.Demand
    private let demandPerValue: Subscribers.Demand
    private let onEvent: (@Sendable (Event) -> Void)?
    private let loop: EventLoop

    init(
        loop: EventLoop,
        initialDemand: Subscribers.Demand,
        demandPerValue: Subscribers.Demand = .none,
        onEvent: (@Sendable (Event) -> Void)? = nil
    ) {
        self.loop = loop
        self.initialDemand = initialDemand
        self.demandPerValue = demandPerValue
        self.onEvent = onEvent
    }

    var subscription: (any Subscription)? {
        subscriptionBox.value?.subscription
    }

    func receive(subscription: any Subscription) {
        subscriptionBox.value = SubscriptionReference(subscription: subscription)
        if initialDemand > .none {
            subscription.request(initialDemand)
        }
    }

    func receive(_ input: EventLoop.PollEvents) -> Subscribers.Demand {
        threads.append(loop.isInLoopThread)
        events.append(.value(input))
        onEvent?(.value(input))
        return demandPerValue
    }

    func receive(completion: Subscribers.Completion<EventLoopError>) {
        threads.append(loop.isInLoopThread)
        let event: Event
        switch completion {
        case .finished: event = .finished
        case .failure(let error): event = .failure(error)
        }
        events.append(event)
        onEvent?(event)
    }
}
