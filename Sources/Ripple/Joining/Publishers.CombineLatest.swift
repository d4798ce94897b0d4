#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Publishers

extension Publishers {
    /// A publisher that combines the most recent values of two publishers into tuples.
    ///
    /// Nothing is emitted until both upstreams have produced a value; after that, every value from either
    /// upstream emits a tuple of the latest value of each, as long as the downstream has demand (a value
    /// arriving without demand only updates the latest value). Every request from the downstream is passed
    /// to both upstreams. It finishes when both upstreams have finished, and fails with the first upstream
    /// failure, cancelling the other upstream.
    public struct CombineLatest<A: Publisher, B: Publisher>: Publisher where A.Failure == B.Failure {
        /// Tuples of the latest value of each upstream.
        public typealias Output = (A.Output, B.Output)
        /// The upstreams' shared failure type.
        public typealias Failure = A.Failure

        /// The first upstream publisher.
        public let a: A
        /// The second upstream publisher.
        public let b: B

        /// Creates a publisher that combines the latest values of `a` and `b`.
        public init(_ a: A, _ b: B) {
            self.a = a
            self.b = b
        }

        /// Subscribes to both upstreams, then hands `subscriber` its `"CombineLatest"` subscription.
        public func receive<S: Subscriber>(subscriber: S)
        where S.Failure == B.Failure, S.Input == (A.Output, B.Output) {
            let inner = CombineLatestInner<LatestValues2<A.Output, B.Output>, S>(subscriber, lanes: 2)
            a.subscribe(CombineLatestSide(inner, lane: 0) { $0.a.replace(with: $1) })
            b.subscribe(CombineLatestSide(inner, lane: 1) { $0.b.replace(with: $1) })
            inner.start()
        }
    }

    /// A publisher that combines the most recent values of three publishers into tuples.
    ///
    /// Nothing is emitted until every upstream has produced a value; after that, every value from any
    /// upstream emits a tuple of the latest value of each, as long as the downstream has demand (a value
    /// arriving without demand only updates the latest value). Every request from the downstream is passed
    /// to all upstreams. It finishes when all upstreams have finished, and fails with the first upstream
    /// failure, cancelling the other upstreams.
    public struct CombineLatest3<A: Publisher, B: Publisher, C: Publisher>: Publisher
    where A.Failure == B.Failure, B.Failure == C.Failure {
        /// Tuples of the latest value of each upstream.
        public typealias Output = (A.Output, B.Output, C.Output)
        /// The upstreams' shared failure type.
        public typealias Failure = A.Failure

        /// The first upstream publisher.
        public let a: A
        /// The second upstream publisher.
        public let b: B
        /// The third upstream publisher.
        public let c: C

        /// Creates a publisher that combines the latest values of `a`, `b` and `c`.
        public init(_ a: A, _ b: B, _ c: C) {
            self.a = a
            self.b = b
            self.c = c
        }

        /// Subscribes to the three upstreams, then hands `subscriber` its `"CombineLatest"` subscription.
        public func receive<S: Subscriber>(subscriber: S)
        where S.Failure == C.Failure, S.Input == (A.Output, B.Output, C.Output) {
            let inner = CombineLatestInner<LatestValues3<A.Output, B.Output, C.Output>, S>(subscriber, lanes: 3)
            a.subscribe(CombineLatestSide(inner, lane: 0) { $0.a.replace(with: $1) })
            b.subscribe(CombineLatestSide(inner, lane: 1) { $0.b.replace(with: $1) })
            c.subscribe(CombineLatestSide(inner, lane: 2) { $0.c.replace(with: $1) })
            inner.start()
        }
    }

    /// A publisher that combines the most recent values of four publishers into tuples.
    ///
    /// Nothing is emitted until every upstream has produced a value; after that, every value from any
    /// upstream emits a tuple of the latest value of each, as long as the downstream has demand (a value
    /// arriving without demand only updates the latest value). Every request from the downstream is passed
    /// to all upstreams. It finishes when all upstreams have finished, and fails with the first upstream
    /// failure, cancelling the other upstreams.
    public struct CombineLatest4<A: Publisher, B: Publisher, C: Publisher, D: Publisher>: Publisher
    where A.Failure == B.Failure, B.Failure == C.Failure, C.Failure == D.Failure {
        /// Tuples of the latest value of each upstream.
        public typealias Output = (A.Output, B.Output, C.Output, D.Output)
        /// The upstreams' shared failure type.
        public typealias Failure = A.Failure

        /// The first upstream publisher.
        public let a: A
        /// The second upstream publisher.
        public let b: B
        /// The third upstream publisher.
        public let c: C
        /// The fourth upstream publisher.
        public let d: D

        /// Creates a publisher that combines the latest values of `a`, `b`, `c` and `d`.
        public init(_ a: A, _ b: B, _ c: C, _ d: D) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
        }

        /// Subscribes to the four upstreams, then hands `subscriber` its `"CombineLatest"` subscription.
        public func receive<S: Subscriber>(subscriber: S)
        where S.Failure == D.Failure, S.Input == (A.Output, B.Output, C.Output, D.Output) {
            typealias Values = LatestValues4<A.Output, B.Output, C.Output, D.Output>
            let inner = CombineLatestInner<Values, S>(subscriber, lanes: 4)
            a.subscribe(CombineLatestSide(inner, lane: 0) { $0.a.replace(with: $1) })
            b.subscribe(CombineLatestSide(inner, lane: 1) { $0.b.replace(with: $1) })
            c.subscribe(CombineLatestSide(inner, lane: 2) { $0.c.replace(with: $1) })
            d.subscribe(CombineLatestSide(inner, lane: 3) { $0.d.replace(with: $1) })
            inner.start()
        }
    }
}

// MARK: - Equatable

extension Publishers.CombineLatest: Equatable where A: Equatable, B: Equatable {
    /// Whether both publishers combine equal upstreams.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b
    }
}

extension Publishers.CombineLatest3: Equatable where A: Equatable, B: Equatable, C: Equatable {
    /// Whether both publishers combine equal upstreams.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c
    }
}

extension Publishers.CombineLatest4: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable {
    /// Whether both publishers combine equal upstreams.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c && lhs.d == rhs.d
    }
}

// MARK: - Operators

extension Publisher {
    /// Combines this publisher with `other`, publishing a tuple of the latest value of each whenever either
    /// publishes, once both have published at least one value.
    ///
    /// Requests from the downstream go to both upstreams; a value that arrives while the downstream has no
    /// demand only replaces that upstream's latest value. The result finishes once both upstreams have
    /// finished (never, if one of them never publishes and never finishes) and fails with the first
    /// failure, cancelling the other upstream.
    ///
    /// - Parameter other: Another publisher to combine with this one.
    /// - Returns: A ``Publishers/CombineLatest`` publisher.
    public func combineLatest<P: Publisher>(_ other: P) -> Publishers.CombineLatest<Self, P>
    where Failure == P.Failure {
        Publishers.CombineLatest(self, other)
    }

    /// Combines this publisher with two others, publishing a tuple of the latest value of each whenever
    /// any of them publishes, once all have published at least one value.
    ///
    /// Requests from the downstream go to every upstream. The result finishes once all upstreams have
    /// finished and fails with the first failure, cancelling the other upstreams.
    ///
    /// - Parameters:
    ///   - publisher1: A second publisher to combine with this one.
    ///   - publisher2: A third publisher to combine with this one.
    /// - Returns: A ``Publishers/CombineLatest3`` publisher.
    public func combineLatest<P: Publisher, Q: Publisher>(
        _ publisher1: P,
        _ publisher2: Q
    ) -> Publishers.CombineLatest3<Self, P, Q> where Failure == P.Failure, P.Failure == Q.Failure {
        Publishers.CombineLatest3(self, publisher1, publisher2)
    }

    /// Combines this publisher with three others, publishing a tuple of the latest value of each whenever
    /// any of them publishes, once all have published at least one value.
    ///
    /// Requests from the downstream go to every upstream. The result finishes once all upstreams have
    /// finished and fails with the first failure, cancelling the other upstreams.
    ///
    /// - Parameters:
    ///   - publisher1: A second publisher to combine with this one.
    ///   - publisher2: A third publisher to combine with this one.
    ///   - publisher3: A fourth publisher to combine with this one.
    /// - Returns: A ``Publishers/CombineLatest4`` publisher.
    public func combineLatest<P: Publisher, Q: Publisher, R: Publisher>(
        _ publisher1: P,
        _ publisher2: Q,
        _ publisher3: R
    ) -> Publishers.CombineLatest4<Self, P, Q, R>
    where Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure {
        Publishers.CombineLatest4(self, publisher1, publisher2, publisher3)
    }
}

// MARK: - Latest values per arity

/// The latest value of each upstream, `nil` until that upstream has published.
private protocol LatestValues {
    associatedtype Output
    init()
    /// The tuple of every latest value, or `nil` while some upstream has not published yet.
    var combined: Output? { get }
}

private struct LatestValues2<A, B>: LatestValues {
    var a: A?
    var b: B?

    var combined: (A, B)? {
        guard let a, let b else { return nil }
        return (a, b)
    }
}

private struct LatestValues3<A, B, C>: LatestValues {
    var a: A?
    var b: B?
    var c: C?

    var combined: (A, B, C)? {
        guard let a, let b, let c else { return nil }
        return (a, b, c)
    }
}

private struct LatestValues4<A, B, C, D>: LatestValues {
    var a: A?
    var b: B?
    var c: C?
    var d: D?

    var combined: (A, B, C, D)? {
        guard let a, let b, let c, let d else { return nil }
        return (a, b, c, d)
    }
}

extension Optional {
    /// Stores `newValue` and returns the value it replaces, so the caller can release the old value
    /// after leaving the lock.
    fileprivate mutating func replace(with newValue: Wrapped) -> Wrapped? {
        let old = take()
        self = newValue
        return old
    }
}

/// An identifier of the calling thread, to tell a re-entrant call (made by the downstream, on the thread
/// that is delivering) from a concurrent one (made on another thread).
private func currentThreadIdentifier() -> UInt {
    #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
    #else
    UInt(pthread_self())
    #endif
}

// MARK: - Side subscriber

/// The subscriber attached to one upstream: it hands that upstream's signals to the shared inner
/// subscription, tagged with the upstream's lane.
private struct CombineLatestSide<Input, Values: LatestValues, Downstream: Subscriber>: Subscriber,
    CustomStringConvertible
where Downstream.Input == Values.Output {
    typealias Failure = Downstream.Failure

    let combineIdentifier = CombineIdentifier()
    private let inner: CombineLatestInner<Values, Downstream>
    private let lane: Int
    /// Stores a value into this lane's slot, returning the value it replaces.
    private let store: (inout Values, Input) -> Input?

    init(
        _ inner: CombineLatestInner<Values, Downstream>,
        lane: Int,
        store: @escaping (inout Values, Input) -> Input?
    ) {
        self.inner = inner
        self.lane = lane
        self.store = store
    }

    var description: String { "CombineLatest" }

    func receive(subscription: any Subscription) {
        inner.receive(subscription: subscription, lane: lane)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        inner.receive(input, lane: lane, store: store)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        inner.receive(completion: completion, lane: lane)
    }
}

// MARK: - Inner subscription

/// The subscription handed to the downstream and the shared state of every lane.
///
/// Emissions are serialised: the thread that starts delivering keeps delivering, and a combination made
/// on another thread meanwhile (with demand available) is queued in `backlog` and delivered by that thread
/// afterwards, so none is lost. A value the downstream causes re-entrantly, from inside its `receive(_:)`,
/// only updates the latest value, as in Combine. Extra demand the downstream returns from `receive(_:)`
/// reaches every upstream: the lane being served gets it as the return value of its `receive(_:)`, the
/// others through `request(_:)`.
private final class CombineLatestInner<Values: LatestValues, Downstream: Subscriber>: Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
where Downstream.Input == Values.Output {
    typealias Output = Values.Output
    typealias Failure = Downstream.Failure

    private let lock = Lock()
    private let laneCount: Int
    /// `nil` once the completion has been handed out or the subscription was cancelled.
    private nonisolated(unsafe) var downstream: Downstream?
    private nonisolated(unsafe) var values = Values()
    private nonisolated(unsafe) var upstreams: [(any Subscription)?]
    /// Bit `lane` is set once that upstream has finished.
    private nonisolated(unsafe) var finishedLanes: UInt8 = 0
    /// What the downstream still wants.
    private nonisolated(unsafe) var demand = Subscribers.Demand.none
    /// The sum of every downstream request, for an upstream whose subscription arrives late.
    private nonisolated(unsafe) var requested = Subscribers.Demand.none
    /// Whether `receive(subscription:)` of the downstream has returned: completions wait for it.
    private nonisolated(unsafe) var isEstablished = false
    /// Completed, failed or cancelled: upstream signals are ignored from then on.
    private nonisolated(unsafe) var isTerminated = false
    private nonisolated(unsafe) var pendingCompletion: Subscribers.Completion<Failure>?
    private nonisolated(unsafe) var isDelivering = false
    private nonisolated(unsafe) var deliveringThread: UInt = 0
    /// Combinations made on other threads while a delivery was under way.
    private nonisolated(unsafe) var backlog = LatestBacklog<Output>()

    init(_ downstream: Downstream, lanes: Int) {
        self.downstream = downstream
        laneCount = lanes
        upstreams = Array(repeating: nil, count: lanes)
    }

    var description: String { "CombineLatest" }

    var playgroundDescription: Any { description }

    var customMirror: Mirror {
        let demand = lock.withLock { self.demand }
        return Mirror(self, children: ["demand": demand])
    }

    /// Hands the downstream its subscription, then any completion that arrived meanwhile.
    func start() {
        let target = lock.withLock { downstream }
        target?.receive(subscription: self)
        let completion = lock.withLock { () -> DeliverableCompletion? in
            isEstablished = true
            return takeDeliverableCompletion()
        }
        completion?.deliver()
    }

    // MARK: Upstream signals

    func receive(subscription: any Subscription, lane: Int) {
        let initialDemand = lock.withLock { () -> Subscribers.Demand? in
            guard !isTerminated, upstreams[lane] == nil, finishedLanes & (1 << lane) == 0 else { return nil }
            upstreams[lane] = subscription
            return requested
        }
        guard let initialDemand else {
            subscription.cancel()
            return
        }
        if initialDemand != .none {
            subscription.request(initialDemand)
        }
    }

    func receive<Input>(
        _ input: Input,
        lane: Int,
        store: (inout Values, Input) -> Input?
    ) -> Subscribers.Demand {
        // The value a new one replaces is dropped here, after the lock is released.
        let (start, _) = lock.withLock { () -> ((Downstream, Output)?, Input?) in
            guard !isTerminated, finishedLanes & (1 << lane) == 0 else { return (nil, nil) }
            let replaced = store(&values, input)
            guard demand != .none, let combined = values.combined else { return (nil, replaced) }
            if isDelivering {
                // Re-entrant: the downstream caused this value from inside `receive(_:)`; Combine only
                // records it. Concurrent: queue the combination for the delivering thread.
                if deliveringThread != currentThreadIdentifier() {
                    demand -= 1
                    backlog.append(combined)
                }
                return (nil, replaced)
            }
            guard let downstream else { return (nil, replaced) }
            demand -= 1
            isDelivering = true
            deliveringThread = currentThreadIdentifier()
            return ((downstream, combined), replaced)
        }
        guard let (target, combined) = start else { return .none }
        return deliver(combined, to: target, servingLane: lane)
    }

    func receive(completion: Subscribers.Completion<Failure>, lane: Int) {
        switch completion {
        case .finished:
            let (deliverable, _) = lock.withLock { () -> (DeliverableCompletion?, Values?) in
                guard !isTerminated, finishedLanes & (1 << lane) == 0 else { return (nil, nil) }
                finishedLanes |= 1 << lane
                upstreams[lane] = nil
                guard finishedLanes.nonzeroBitCount == laneCount else { return (nil, nil) }
                isTerminated = true
                pendingCompletion = completion
                return (takeDeliverableCompletion(), discardValues())
            }
            deliverable?.deliver()
        case .failure:
            let (others, deliverable, _) = lock.withLock {
                () -> ([(any Subscription)?], DeliverableCompletion?, (Values, LatestBacklog<Output>)?) in
                guard !isTerminated, finishedLanes & (1 << lane) == 0 else { return ([], nil, nil) }
                isTerminated = true
                finishedLanes |= 1 << lane
                upstreams[lane] = nil
                let others = upstreams
                upstreams = Array(repeating: nil, count: laneCount)
                pendingCompletion = completion
                let discarded = (discardValues(), discardBacklog())
                return (others, takeDeliverableCompletion(), discarded)
            }
            for upstream in others {
                upstream?.cancel()
            }
            deliverable?.deliver()
        }
    }

    // MARK: Subscription

    func request(_ demand: Subscribers.Demand) {
        APIViolation.checkDemand(demand)
        let targets = lock.withLock { () -> [(any Subscription)?] in
            guard !isTerminated else { return [] }
            self.demand += demand
            requested += demand
            return upstreams
        }
        for upstream in targets {
            upstream?.request(demand)
        }
    }

    func cancel() {
        let (targets, _) = lock.withLock {
            () -> ([(any Subscription)?], (Downstream?, Values, LatestBacklog<Output>)?) in
            guard !isTerminated || downstream != nil else { return ([], nil) }
            isTerminated = true
            pendingCompletion = nil
            let targets = upstreams
            upstreams = Array(repeating: nil, count: laneCount)
            let released = downstream
            downstream = nil
            return (targets, (released, discardValues(), discardBacklog()))
        }
        for upstream in targets {
            upstream?.cancel()
        }
    }

    // MARK: Delivery

    /// Delivers `first`, then whatever other threads queued meanwhile; returns the extra demand for the
    /// lane being served and requests it from the other lanes.
    private func deliver(_ first: Output, to target: Downstream, servingLane lane: Int) -> Subscribers.Demand {
        var item = first
        var extra = Subscribers.Demand.none
        while true {
            let more = target.receive(item)
            let step = lock.withLock { () -> DeliveryStep in
                if more != .none {
                    demand += more
                    extra += more
                }
                if let next = backlog.popFirst() {
                    return .next(next)
                }
                isDelivering = false
                let completion = takeDeliverableCompletion()
                guard extra != .none, !isTerminated else { return .done(completion, [], .none) }
                return .done(completion, upstreams, extra)
            }
            switch step {
            case .next(let next):
                item = next
            case .done(let completion, let others, let laneDemand):
                completion?.deliver()
                for (index, upstream) in others.enumerated() where index != lane {
                    upstream?.request(laneDemand)
                }
                return laneDemand
            }
        }
    }

    /// What a delivery does after the downstream has taken a value.
    private enum DeliveryStep {
        /// Deliver this queued combination next.
        case next(Output)
        /// Stop: deliver the completion if any, request the extra demand from the other lanes and return it
        /// to the served one.
        case done(DeliverableCompletion?, [(any Subscription)?], Subscribers.Demand)
    }

    /// A completion together with the subscriber it goes to, handed out of the lock.
    private struct DeliverableCompletion {
        let target: Downstream
        let completion: Subscribers.Completion<Failure>

        func deliver() {
            target.receive(completion: completion)
        }
    }

    /// Takes the pending completion if it may be delivered now (the downstream has its subscription and no
    /// value is being delivered). Call with the lock held.
    private func takeDeliverableCompletion() -> DeliverableCompletion? {
        guard isEstablished, !isDelivering, let completion = pendingCompletion, let target = downstream else {
            return nil
        }
        pendingCompletion = nil
        downstream = nil
        return DeliverableCompletion(target: target, completion: completion)
    }

    /// Moves the latest values out, to be released after the lock. Call with the lock held.
    private func discardValues() -> Values {
        var discarded = Values()
        swap(&discarded, &values)
        return discarded
    }

    /// Moves the queued combinations out, to be released after the lock. Call with the lock held.
    private func discardBacklog() -> LatestBacklog<Output> {
        var discarded = LatestBacklog<Output>()
        swap(&discarded, &backlog)
        return discarded
    }
}

// MARK: - Backlog

/// A first-in first-out queue of combinations waiting for the delivering thread. Its storage is kept
/// between uses, so a steady flow allocates nothing.
private struct LatestBacklog<Element> {
    private var slots: ContiguousArray<Element?> = []
    private var head = 0
    private var count = 0

    mutating func append(_ element: Element) {
        if count == slots.count {
            grow()
        }
        var index = head + count
        if index >= slots.count {
            index -= slots.count
        }
        slots[index] = element
        count += 1
    }

    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = slots[head].take()
        head += 1
        if head == slots.count {
            head = 0
        }
        count -= 1
        return element
    }

    private mutating func grow() {
        let capacity = Swift.max(4, slots.count * 2)
        var grown = ContiguousArray<Element?>()
        grown.reserveCapacity(capacity)
        for offset in 0..<count {
            grown.append(slots[(head + offset) % slots.count].take())
        }
        grown.append(contentsOf: repeatElement(nil, count: capacity - count))
        slots = grown
        head = 0
    }
}
