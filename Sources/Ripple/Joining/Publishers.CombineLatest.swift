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
        ///
        /// - Parameters:
        ///   - a: the first upstream publisher.
        ///   - b: the second upstream publisher.
        public init(_ a: A, _ b: B) {
            self.a = a
            self.b = b
        }

        /// Subscribes to both upstreams, then hands `subscriber` its `"CombineLatest"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S)
        where S.Failure == B.Failure, S.Input == (A.Output, B.Output) {
            let inner = CombineLatestInner<LatestValues2<A.Output, B.Output>, S>(subscriber, lanes: 2)
            a.subscribe(CombineLatestSide(inner, lane: 0, slot: inner.values.a))
            b.subscribe(CombineLatestSide(inner, lane: 1, slot: inner.values.b))
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
        ///
        /// - Parameters:
        ///   - a: the first upstream publisher.
        ///   - b: the second upstream publisher.
        ///   - c: the third upstream publisher.
        public init(_ a: A, _ b: B, _ c: C) {
            self.a = a
            self.b = b
            self.c = c
        }

        /// Subscribes to the three upstreams, then hands `subscriber` its `"CombineLatest"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S)
        where S.Failure == C.Failure, S.Input == (A.Output, B.Output, C.Output) {
            let inner = CombineLatestInner<LatestValues3<A.Output, B.Output, C.Output>, S>(subscriber, lanes: 3)
            a.subscribe(CombineLatestSide(inner, lane: 0, slot: inner.values.a))
            b.subscribe(CombineLatestSide(inner, lane: 1, slot: inner.values.b))
            c.subscribe(CombineLatestSide(inner, lane: 2, slot: inner.values.c))
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
        ///
        /// - Parameters:
        ///   - a: the first upstream publisher.
        ///   - b: the second upstream publisher.
        ///   - c: the third upstream publisher.
        ///   - d: the fourth upstream publisher.
        public init(_ a: A, _ b: B, _ c: C, _ d: D) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
        }

        /// Subscribes to the four upstreams, then hands `subscriber` its `"CombineLatest"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S)
        where S.Failure == D.Failure, S.Input == (A.Output, B.Output, C.Output, D.Output) {
            typealias Values = LatestValues4<A.Output, B.Output, C.Output, D.Output>
            let inner = CombineLatestInner<Values, S>(subscriber, lanes: 4)
            a.subscribe(CombineLatestSide(inner, lane: 0, slot: inner.values.a))
            b.subscribe(CombineLatestSide(inner, lane: 1, slot: inner.values.b))
            c.subscribe(CombineLatestSide(inner, lane: 2, slot: inner.values.c))
            d.subscribe(CombineLatestSide(inner, lane: 3, slot: inner.values.d))
            inner.start()
        }
    }
}

// MARK: - Equatable

extension Publishers.CombineLatest: Equatable where A: Equatable, B: Equatable {
    /// Whether both publishers combine equal upstreams.
    ///
    /// - Parameters:
    ///   - lhs: a value.
    ///   - rhs: another value.
    /// - Returns: whether they are equal.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b
    }
}

extension Publishers.CombineLatest3: Equatable where A: Equatable, B: Equatable, C: Equatable {
    /// Whether both publishers combine equal upstreams.
    ///
    /// - Parameters:
    ///   - lhs: a value.
    ///   - rhs: another value.
    /// - Returns: whether they are equal.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c
    }
}

extension Publishers.CombineLatest4: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable {
    /// Whether both publishers combine equal upstreams.
    ///
    /// - Parameters:
    ///   - lhs: a value.
    ///   - rhs: another value.
    /// - Returns: whether they are equal.
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

/// The latest value of each upstream.
private protocol LatestValues {
    associatedtype Output
    init()
    /// The tuple of every latest value; call only once every upstream has published.
    func combined() -> Output
    /// Moves every latest value out, to be released after the lock.
    func detachAll() -> Self
}

private struct LatestValues2<A, B>: LatestValues {
    let a: LatestSlot<A>
    let b: LatestSlot<B>

    init() {
        self.init(a: LatestSlot(), b: LatestSlot())
    }

    init(a: LatestSlot<A>, b: LatestSlot<B>) {
        self.a = a
        self.b = b
    }

    func combined() -> (A, B) {
        (a.value, b.value)
    }

    func detachAll() -> Self {
        Self(a: a.detach(), b: b.detach())
    }
}

private struct LatestValues3<A, B, C>: LatestValues {
    let a: LatestSlot<A>
    let b: LatestSlot<B>
    let c: LatestSlot<C>

    init() {
        self.init(a: LatestSlot(), b: LatestSlot(), c: LatestSlot())
    }

    init(a: LatestSlot<A>, b: LatestSlot<B>, c: LatestSlot<C>) {
        self.a = a
        self.b = b
        self.c = c
    }

    func combined() -> (A, B, C) {
        (a.value, b.value, c.value)
    }

    func detachAll() -> Self {
        Self(a: a.detach(), b: b.detach(), c: c.detach())
    }
}

private struct LatestValues4<A, B, C, D>: LatestValues {
    let a: LatestSlot<A>
    let b: LatestSlot<B>
    let c: LatestSlot<C>
    let d: LatestSlot<D>

    init() {
        self.init(a: LatestSlot(), b: LatestSlot(), c: LatestSlot(), d: LatestSlot())
    }

    init(a: LatestSlot<A>, b: LatestSlot<B>, c: LatestSlot<C>, d: LatestSlot<D>) {
        self.a = a
        self.b = b
        self.c = c
        self.d = d
    }

    func combined() -> (A, B, C, D) {
        (a.value, b.value, c.value, d.value)
    }

    func detachAll() -> Self {
        Self(a: a.detach(), b: b.detach(), c: c.detach(), d: d.detach())
    }
}

/// One upstream's latest value. A class over raw storage rather than an optional: from the operator's
/// generic code (not specialised for the client's types) storing and reading then cost no type-metadata
/// look-up. Not thread-safe: touched only with the inner subscription's lock held.
private final class LatestSlot<Element> {
    private let storage = UnsafeMutablePointer<Element>.allocate(capacity: 1)
    @exclusivity(unchecked) private var hasValue = false

    init() {}

    deinit {
        if hasValue {
            storage.deinitialize(count: 1)
        }
        storage.deallocate()
    }

    /// The latest value; read only after a first ``store(_:)``.
    var value: Element {
        assert(hasValue, "no value stored yet")
        return storage.pointee
    }

    /// Stores `newValue`; the value it replaces is swapped into `newValue`, so the caller releases it
    /// after the lock.
    func store(_ newValue: inout Element) {
        if hasValue {
            swap(&storage.pointee, &newValue)
        } else {
            storage.initialize(to: newValue)
            hasValue = true
        }
    }

    /// Moves the value into a new slot and returns it, leaving this one empty.
    func detach() -> LatestSlot {
        let detached = LatestSlot()
        if hasValue {
            detached.storage.moveInitialize(from: storage, count: 1)
            detached.hasValue = true
            hasValue = false
        }
        return detached
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
/// subscription, together with the upstream's lane and its slot.
private struct CombineLatestSide<Input, Values: LatestValues, Downstream: Subscriber>: Subscriber,
    CustomStringConvertible
where Downstream.Input == Values.Output {
    typealias Failure = Downstream.Failure

    let combineIdentifier = CombineIdentifier()
    private let inner: CombineLatestInner<Values, Downstream>
    private let lane: Int
    private let slot: LatestSlot<Input>

    init(_ inner: CombineLatestInner<Values, Downstream>, lane: Int, slot: LatestSlot<Input>) {
        self.inner = inner
        self.lane = lane
        self.slot = slot
    }

    var description: String { "CombineLatest" }

    func receive(subscription: any Subscription) {
        inner.receive(subscription: subscription, lane: lane)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        inner.receive(input, lane: lane, slot: slot)
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
///
/// The code is generic and, called from another module, not specialised: the per-value path therefore
/// keeps to state of non-generic types (flags, counters, demand) and to the slots, so that it needs
/// almost no type-metadata look-ups. The state is touched only with the lock held, so its dynamic
/// exclusivity checks (a runtime call per access in unspecialised code) are turned off.
private final class CombineLatestInner<Values: LatestValues, Downstream: Subscriber>: Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
where Downstream.Input == Values.Output {
    typealias Output = Values.Output
    typealias Failure = Downstream.Failure

    private let lock = Lock()
    private let downstream: Downstream
    private let laneCount: Int
    /// Every lane's bit.
    private let allLanes: UInt8
    /// The latest values, shared with the side subscribers; touched only with the lock held.
    let values = Values()
    @exclusivity(unchecked) private nonisolated(unsafe) var upstreams: [(any Subscription)?]
    /// Bit `lane` is set once that upstream has published a value.
    @exclusivity(unchecked) private nonisolated(unsafe) var publishedLanes: UInt8 = 0
    /// Bit `lane` is set once that upstream has finished.
    @exclusivity(unchecked) private nonisolated(unsafe) var finishedLanes: UInt8 = 0
    /// What the downstream still wants.
    @exclusivity(unchecked) private nonisolated(unsafe) var demand = Subscribers.Demand.none
    /// The sum of every downstream request, for an upstream whose subscription arrives late.
    @exclusivity(unchecked) private nonisolated(unsafe) var requested = Subscribers.Demand.none
    /// Whether `receive(subscription:)` of the downstream has returned: completions wait for it.
    @exclusivity(unchecked) private nonisolated(unsafe) var isEstablished = false
    /// Completed, failed or cancelled: upstream signals are ignored from then on.
    @exclusivity(unchecked) private nonisolated(unsafe) var isTerminated = false
    /// Whether the downstream has been given its completion or has cancelled: nothing more reaches it.
    @exclusivity(unchecked) private nonisolated(unsafe) var isDownstreamDone = false
    @exclusivity(unchecked) private nonisolated(unsafe) var hasPendingCompletion = false
    @exclusivity(unchecked)
    private nonisolated(unsafe) var pendingCompletion = Subscribers.Completion<Failure>.finished
    @exclusivity(unchecked) private nonisolated(unsafe) var isDelivering = false
    @exclusivity(unchecked) private nonisolated(unsafe) var deliveringThread: UInt = 0
    /// Combinations made on other threads while a delivery was under way.
    private let backlog = JoiningRingBuffer<Output>()
    /// The combination the delivering thread takes next. It is filled with the lock held and emptied
    /// after the lock by the thread that set `isDelivering`, which alone touches it until it clears the
    /// flag; this hands a combination out of the lock without an optional (a type-metadata look-up per
    /// value).
    private let handoff = JoiningRingBuffer<Output>()

    init(_ downstream: Downstream, lanes: Int) {
        self.downstream = downstream
        laneCount = lanes
        allLanes = UInt8(truncatingIfNeeded: (1 << lanes) - 1)
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
        downstream.receive(subscription: self)
        let deliverable = lock.withLock { () -> Bool in
            isEstablished = true
            return claimPendingCompletion()
        }
        if deliverable {
            deliverPendingCompletion()
        }
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

    func receive<Input>(_ input: Input, lane: Int, slot: LatestSlot<Input>) -> Subscribers.Demand {
        // After the lock, `value` holds the value the new one replaced, released here.
        var value = input
        let starts = lock.withLock { () -> Bool in
            guard !isTerminated, finishedLanes & (1 << lane) == 0 else { return false }
            slot.store(&value)
            publishedLanes |= 1 << lane
            guard demand != .none, publishedLanes == allLanes else { return false }
            if isDelivering {
                // Re-entrant: the downstream caused this value from inside `receive(_:)`; Combine only
                // records it. Concurrent: queue the combination for the delivering thread.
                if deliveringThread != currentThreadIdentifier() {
                    demand -= 1
                    backlog.append(values.combined())
                }
                return false
            }
            demand -= 1
            isDelivering = true
            deliveringThread = currentThreadIdentifier()
            handoff.append(values.combined())
            return true
        }
        return starts ? deliver(servingLane: lane) : .none
    }

    func receive(completion: Subscribers.Completion<Failure>, lane: Int) {
        var others: [(any Subscription)?] = []
        let (deliverable, discarded) = lock.withLock { () -> (Bool, (Values, JoiningRingBuffer<Output>?)?) in
            guard !isTerminated, finishedLanes & (1 << lane) == 0 else { return (false, nil) }
            finishedLanes |= 1 << lane
            upstreams[lane] = nil
            var discardedBacklog: JoiningRingBuffer<Output>?
            switch completion {
            case .finished:
                guard finishedLanes == allLanes else { return (false, nil) }
            case .failure:
                // Combine cancels the other upstreams, not the failed one; queued values are dropped.
                others = upstreams
                upstreams = Array(repeating: nil, count: laneCount)
                discardedBacklog = backlog.detachAll()
            }
            isTerminated = true
            hasPendingCompletion = true
            pendingCompletion = completion
            return (claimPendingCompletion(), (values.detachAll(), discardedBacklog))
        }
        for upstream in others {
            upstream?.cancel()
        }
        if deliverable {
            deliverPendingCompletion()
        }
        _ = discarded
    }

    // MARK: Subscription

    func request(_ demand: Subscribers.Demand) {
        APIViolation.checkDemand(demand)
        var targets: [(any Subscription)?] = []
        lock.withLock {
            guard !isTerminated else { return }
            self.demand += demand
            requested += demand
            targets = upstreams
        }
        for upstream in targets {
            upstream?.request(demand)
        }
    }

    func cancel() {
        var targets: [(any Subscription)?] = []
        let discarded = lock.withLock { () -> (Values, JoiningRingBuffer<Output>)? in
            guard !isDownstreamDone else { return nil }
            isDownstreamDone = true
            isTerminated = true
            hasPendingCompletion = false
            targets = upstreams
            upstreams = Array(repeating: nil, count: laneCount)
            return (values.detachAll(), backlog.detachAll())
        }
        for upstream in targets {
            upstream?.cancel()
        }
        _ = discarded
    }

    // MARK: Delivery

    /// Delivers the combination in `handoff`, then whatever other threads queued meanwhile; returns the
    /// extra demand for the lane being served and requests it from the other lanes. Call after setting
    /// `isDelivering`.
    private func deliver(servingLane lane: Int) -> Subscribers.Demand {
        var item = handoff.removeFirst()
        var extra = Subscribers.Demand.none
        // Filled in when the delivery stops.
        var others: [(any Subscription)?] = []
        var completes = false
        while true {
            let more = downstream.receive(item)
            let continues = lock.withLock { () -> Bool in
                if more != .none {
                    demand += more
                    extra += more
                }
                if !backlog.isEmpty {
                    handoff.append(backlog.removeFirst())
                    return true
                }
                isDelivering = false
                if isTerminated {
                    extra = .none
                } else if extra != .none {
                    others = upstreams
                }
                completes = claimPendingCompletion()
                return false
            }
            guard continues else { break }
            item = handoff.removeFirst()
        }
        if completes {
            deliverPendingCompletion()
        }
        for (index, upstream) in others.enumerated() where index != lane {
            upstream?.request(extra)
        }
        return extra
    }

    /// Claims the pending completion if it may be delivered now: the downstream has its subscription and
    /// no value is being delivered. Call with the lock held, then call `deliverPendingCompletion()`.
    private func claimPendingCompletion() -> Bool {
        guard hasPendingCompletion, isEstablished, !isDelivering, !isDownstreamDone else { return false }
        hasPendingCompletion = false
        isDownstreamDone = true
        return true
    }

    /// Delivers the completion claimed by `claimPendingCompletion()`.
    private func deliverPendingCompletion() {
        let completion = lock.withLock { pendingCompletion }
        downstream.receive(completion: completion)
    }
}
