import Dispatch
import Glibc
import Ripple
import RippleTestKit
import RippleTestSupport
import Synchronization
import Testing

@testable import RippleLoop

/// A new connected pair of Unix stream sockets, both close-on-exec from the moment they exist
/// (`SOCK_CLOEXEC`), so that a process another test spawns meanwhile (a `dbus-daemon`, a simulator) keeps
/// no copy of either: a copy kept open there would hide a closed peer from the test. The caller closes both.
///
/// - Returns: The two descriptors.
/// - Throws: When the pair cannot be made.
func closeOnExecSocketPair() throws -> (Int32, Int32) {
    var descriptors: [Int32] = [-1, -1]
    try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &descriptors) == 0)
    return (descriptors[0], descriptors[1])
}

/// An object whose release the tests can observe (to check that dropped closures are freed).
final class ReleaseSentinel: Sendable {
    private let released: LockedBox<[String]>
    private let name: String

    init(_ name: String, releases: LockedBox<[String]>) {
        self.name = name
        released = releases
    }

    deinit {
        released.append(name)
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

/// A subscriber of poll events: RippleTestKit's `TestSubscriber` (the history, the demand the test
/// chooses, waits woken by events), which also records whether each value and the completion arrived on the
/// loop thread.
final class PollRecorder: Subscriber, Sendable {
    typealias Input = EventLoop.PollEvents
    typealias Failure = EventLoopError

    /// A value or the completion, as the tests compare them.
    enum Event: Equatable, Sendable {
        case value(EventLoop.PollEvents)
        case finished
        case failure(EventLoopError)
    }

    let subscriber: TestSubscriber<EventLoop.PollEvents, EventLoopError>
    /// For each value and the completion, whether it arrived on the loop thread.
    let threads = LockedBox<[Bool]>()
    private let loop: EventLoop

    init(
        loop: EventLoop,
        initialDemand: Subscribers.Demand,
        demandPerValue: Subscribers.Demand = .none,
        onEvent: (@Sendable (Event) -> Void)? = nil
    ) {
        self.loop = loop
        subscriber = TestSubscriber(
            initialDemand: initialDemand,
            onValue: { events in
                onEvent?(.value(events))
                return demandPerValue
            },
            onCompletion: { completion in
                switch completion {
                case .finished: onEvent?(.finished)
                case .failure(let error): onEvent?(.failure(error))
                }
            })
    }

    /// The values and the completion, in order.
    var events: [Event] {
        subscriber.events.compactMap { event in
            switch event {
            case .value(let events): .value(events)
            case .completion(.finished): .finished
            case .completion(.failure(let error)): .failure(error)
            case .subscription, .request, .cancel: nil
            }
        }
    }

    var subscription: (any Subscription)? { subscriber.subscription }

    /// Waits until `count` values and completions have arrived (a safety limit of 30 s records an issue).
    func waitForEvents(_ count: Int) async {
        do {
            try await subscriber.wait { $0.valueCount + ($0.isCompleted ? 1 : 0) >= count }
        } catch {
            Issue.record(error)
        }
    }

    func receive(subscription: any Subscription) {
        subscriber.receive(subscription: subscription)
    }

    func receive(_ input: EventLoop.PollEvents) -> Subscribers.Demand {
        threads.append(loop.isInLoopThread)
        return subscriber.receive(input)
    }

    func receive(completion: Subscribers.Completion<EventLoopError>) {
        threads.append(loop.isInLoopThread)
        subscriber.receive(completion: completion)
    }
}
