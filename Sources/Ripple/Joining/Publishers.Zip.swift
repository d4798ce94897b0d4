// MARK: - Publishers

extension Publishers {
    /// A publisher that pairs the values of two publishers in order: the first value of each, then the
    /// second of each, and so on.
    ///
    /// Each upstream's values wait in a queue until the other upstream has a value to pair them with.
    /// Every request from the downstream is passed to both upstreams. It finishes as soon as an upstream
    /// has finished and none of its values wait in the queue (no more pair is possible), cancelling the
    /// other upstream; it fails with the first upstream failure, cancelling both upstreams.
    public struct Zip<A: Publisher, B: Publisher>: Publisher where A.Failure == B.Failure {
        /// Pairs made of one value of each upstream.
        public typealias Output = (A.Output, B.Output)
        /// The upstreams' shared failure type.
        public typealias Failure = A.Failure

        /// The first upstream publisher.
        public let a: A
        /// The second upstream publisher.
        public let b: B

        /// Creates a publisher that zips `a` and `b`.
        ///
        /// - Parameters:
        ///   - a: the first upstream publisher.
        ///   - b: the second upstream publisher.
        public init(_ a: A, _ b: B) {
            self.a = a
            self.b = b
        }

        /// Subscribes to both upstreams, then hands `subscriber` its `"Zip"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S)
        where S.Failure == B.Failure, S.Input == (A.Output, B.Output) {
            let inner = ZipInner<ZipQueues2<A.Output, B.Output>, S>(subscriber, lanes: 2)
            a.subscribe(ZipSide(inner, lane: 0, queue: inner.queues.a))
            b.subscribe(ZipSide(inner, lane: 1, queue: inner.queues.b))
            inner.start()
        }
    }

    /// A publisher that groups the values of three publishers in order: the first value of each, then the
    /// second of each, and so on.
    ///
    /// Each upstream's values wait in a queue until every other upstream has a value to group them with.
    /// Every request from the downstream is passed to all upstreams. It finishes as soon as an upstream
    /// has finished and none of its values wait in the queue, cancelling the other upstreams; it fails
    /// with the first upstream failure, cancelling all upstreams.
    public struct Zip3<A: Publisher, B: Publisher, C: Publisher>: Publisher
    where A.Failure == B.Failure, B.Failure == C.Failure {
        /// Triples made of one value of each upstream.
        public typealias Output = (A.Output, B.Output, C.Output)
        /// The upstreams' shared failure type.
        public typealias Failure = A.Failure

        /// The first upstream publisher.
        public let a: A
        /// The second upstream publisher.
        public let b: B
        /// The third upstream publisher.
        public let c: C

        /// Creates a publisher that zips `a`, `b` and `c`.
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

        /// Subscribes to the three upstreams, then hands `subscriber` its `"Zip"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S)
        where S.Failure == C.Failure, S.Input == (A.Output, B.Output, C.Output) {
            let inner = ZipInner<ZipQueues3<A.Output, B.Output, C.Output>, S>(subscriber, lanes: 3)
            a.subscribe(ZipSide(inner, lane: 0, queue: inner.queues.a))
            b.subscribe(ZipSide(inner, lane: 1, queue: inner.queues.b))
            c.subscribe(ZipSide(inner, lane: 2, queue: inner.queues.c))
            inner.start()
        }
    }

    /// A publisher that groups the values of four publishers in order: the first value of each, then the
    /// second of each, and so on.
    ///
    /// Each upstream's values wait in a queue until every other upstream has a value to group them with.
    /// Every request from the downstream is passed to all upstreams. It finishes as soon as an upstream
    /// has finished and none of its values wait in the queue, cancelling the other upstreams; it fails
    /// with the first upstream failure, cancelling all upstreams.
    public struct Zip4<A: Publisher, B: Publisher, C: Publisher, D: Publisher>: Publisher
    where A.Failure == B.Failure, B.Failure == C.Failure, C.Failure == D.Failure {
        /// Quadruples made of one value of each upstream.
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

        /// Creates a publisher that zips `a`, `b`, `c` and `d`.
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

        /// Subscribes to the four upstreams, then hands `subscriber` its `"Zip"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S)
        where S.Failure == D.Failure, S.Input == (A.Output, B.Output, C.Output, D.Output) {
            let inner = ZipInner<ZipQueues4<A.Output, B.Output, C.Output, D.Output>, S>(subscriber, lanes: 4)
            a.subscribe(ZipSide(inner, lane: 0, queue: inner.queues.a))
            b.subscribe(ZipSide(inner, lane: 1, queue: inner.queues.b))
            c.subscribe(ZipSide(inner, lane: 2, queue: inner.queues.c))
            d.subscribe(ZipSide(inner, lane: 3, queue: inner.queues.d))
            inner.start()
        }
    }
}

// MARK: - Equatable

extension Publishers.Zip: Equatable where A: Equatable, B: Equatable {
    /// Whether both publishers zip equal upstreams.
    ///
    /// - Parameters:
    ///   - lhs: a value.
    ///   - rhs: another value.
    /// - Returns: whether they are equal.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b
    }
}

extension Publishers.Zip3: Equatable where A: Equatable, B: Equatable, C: Equatable {
    /// Whether both publishers zip equal upstreams.
    ///
    /// - Parameters:
    ///   - lhs: a value.
    ///   - rhs: another value.
    /// - Returns: whether they are equal.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c
    }
}

extension Publishers.Zip4: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable {
    /// Whether both publishers zip equal upstreams.
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
    /// Pairs the values of this publisher with those of `other` in order, publishing `(first, first)`,
    /// `(second, second)`, and so on.
    ///
    /// A value waits until the other publisher has produced the value at the same position. Requests from
    /// the downstream go to both upstreams. The result finishes once an upstream has finished and all of
    /// its values have been paired (cancelling the other upstream), and fails with the first failure.
    ///
    /// - Parameter other: Another publisher.
    /// - Returns: A ``Publishers/Zip`` publisher.
    public func zip<P: Publisher>(_ other: P) -> Publishers.Zip<Self, P> where Failure == P.Failure {
        Publishers.Zip(self, other)
    }

    /// Groups the values of this publisher with those of two others in order, publishing a triple of the
    /// first value of each, then of the second of each, and so on.
    ///
    /// Requests from the downstream go to every upstream. The result finishes once an upstream has
    /// finished and all of its values have been grouped (cancelling the others), and fails with the
    /// first failure.
    ///
    /// - Parameters:
    ///   - publisher1: A second publisher.
    ///   - publisher2: A third publisher.
    /// - Returns: A ``Publishers/Zip3`` publisher.
    public func zip<P: Publisher, Q: Publisher>(
        _ publisher1: P,
        _ publisher2: Q
    ) -> Publishers.Zip3<Self, P, Q> where Failure == P.Failure, P.Failure == Q.Failure {
        Publishers.Zip3(self, publisher1, publisher2)
    }

    /// Groups the values of this publisher with those of three others in order, publishing a quadruple of
    /// the first value of each, then of the second of each, and so on.
    ///
    /// Requests from the downstream go to every upstream. The result finishes once an upstream has
    /// finished and all of its values have been grouped (cancelling the others), and fails with the
    /// first failure.
    ///
    /// - Parameters:
    ///   - publisher1: A second publisher.
    ///   - publisher2: A third publisher.
    ///   - publisher3: A fourth publisher.
    /// - Returns: A ``Publishers/Zip4`` publisher.
    public func zip<P: Publisher, Q: Publisher, R: Publisher>(
        _ publisher1: P,
        _ publisher2: Q,
        _ publisher3: R
    ) -> Publishers.Zip4<Self, P, Q, R>
    where Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure {
        Publishers.Zip4(self, publisher1, publisher2, publisher3)
    }
}

// MARK: - Queues per arity

/// One queue of waiting values per upstream.
private protocol ZipQueues {
    associatedtype Output
    init()
    /// Bit `lane` is set when that upstream has no waiting value.
    var emptyLanes: UInt8 { get }
    /// Removes and returns the oldest value of every upstream; call only when `emptyLanes == 0`.
    func removeFirst() -> Output
    /// Moves every waiting value into new queues, to be released after the lock.
    func detachAll() -> Self
}

private struct ZipQueues2<A, B>: ZipQueues {
    let a: JoiningRingBuffer<A>
    let b: JoiningRingBuffer<B>

    init() {
        self.init(a: JoiningRingBuffer(), b: JoiningRingBuffer())
    }

    init(a: JoiningRingBuffer<A>, b: JoiningRingBuffer<B>) {
        self.a = a
        self.b = b
    }

    var emptyLanes: UInt8 {
        (a.isEmpty ? 1 : 0) | (b.isEmpty ? 2 : 0)
    }

    func removeFirst() -> (A, B) {
        (a.removeFirst(), b.removeFirst())
    }

    func detachAll() -> Self {
        Self(a: a.detachAll(), b: b.detachAll())
    }
}

private struct ZipQueues3<A, B, C>: ZipQueues {
    let a: JoiningRingBuffer<A>
    let b: JoiningRingBuffer<B>
    let c: JoiningRingBuffer<C>

    init() {
        self.init(a: JoiningRingBuffer(), b: JoiningRingBuffer(), c: JoiningRingBuffer())
    }

    init(a: JoiningRingBuffer<A>, b: JoiningRingBuffer<B>, c: JoiningRingBuffer<C>) {
        self.a = a
        self.b = b
        self.c = c
    }

    var emptyLanes: UInt8 {
        (a.isEmpty ? 1 : 0) | (b.isEmpty ? 2 : 0) | (c.isEmpty ? 4 : 0)
    }

    func removeFirst() -> (A, B, C) {
        (a.removeFirst(), b.removeFirst(), c.removeFirst())
    }

    func detachAll() -> Self {
        Self(a: a.detachAll(), b: b.detachAll(), c: c.detachAll())
    }
}

private struct ZipQueues4<A, B, C, D>: ZipQueues {
    let a: JoiningRingBuffer<A>
    let b: JoiningRingBuffer<B>
    let c: JoiningRingBuffer<C>
    let d: JoiningRingBuffer<D>

    init() {
        self.init(a: JoiningRingBuffer(), b: JoiningRingBuffer(), c: JoiningRingBuffer(), d: JoiningRingBuffer())
    }

    init(a: JoiningRingBuffer<A>, b: JoiningRingBuffer<B>, c: JoiningRingBuffer<C>, d: JoiningRingBuffer<D>) {
        self.a = a
        self.b = b
        self.c = c
        self.d = d
    }

    var emptyLanes: UInt8 {
        (a.isEmpty ? 1 : 0) | (b.isEmpty ? 2 : 0) | (c.isEmpty ? 4 : 0) | (d.isEmpty ? 8 : 0)
    }

    func removeFirst() -> (A, B, C, D) {
        (a.removeFirst(), b.removeFirst(), c.removeFirst(), d.removeFirst())
    }

    func detachAll() -> Self {
        Self(a: a.detachAll(), b: b.detachAll(), c: c.detachAll(), d: d.detachAll())
    }
}

// MARK: - Side subscriber

/// The subscriber attached to one upstream: it hands that upstream's signals to the shared inner
/// subscription, together with the upstream's lane and its queue.
private struct ZipSide<Input, Queues: ZipQueues, Downstream: Subscriber>: Subscriber, CustomStringConvertible
where Downstream.Input == Queues.Output {
    typealias Failure = Downstream.Failure

    let combineIdentifier = CombineIdentifier()
    private let inner: ZipInner<Queues, Downstream>
    private let lane: Int
    private let queue: JoiningRingBuffer<Input>

    init(_ inner: ZipInner<Queues, Downstream>, lane: Int, queue: JoiningRingBuffer<Input>) {
        self.inner = inner
        self.lane = lane
        self.queue = queue
    }

    var description: String { "Zip" }

    func receive(subscription: any Subscription) {
        inner.receive(subscription: subscription, lane: lane)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        inner.receive(input, lane: lane, queue: queue)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        inner.receive(completion: completion, lane: lane)
    }
}

// MARK: - Inner subscription

/// The subscription handed to the downstream and the shared state of every lane.
///
/// Emissions are serialised with a drain loop: the thread that starts delivering keeps delivering while
/// groups are complete and demand remains; values and requests arriving meanwhile, from other threads or
/// re-entrantly from the downstream, only fill the queues and add demand. Demand reaches every upstream:
/// when the delivery runs inside one upstream's `receive(_:)`, the demand meant for that upstream is
/// returned from it (as Combine does), the others get it through `request(_:)`.
///
/// The code is generic and, called from another module, not specialised: the per-value path therefore
/// keeps to state of non-generic types (flags, counters, demand) and to the queues, so that it needs
/// almost no type-metadata look-ups. The state is touched only with the lock held, so its dynamic
/// exclusivity checks (a runtime call per access in unspecialised code) are turned off.
private final class ZipInner<Queues: ZipQueues, Downstream: Subscriber>: Subscription, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible
where Downstream.Input == Queues.Output {
    typealias Output = Queues.Output
    typealias Failure = Downstream.Failure

    /// The lane value of a delivery started by `request(_:)` rather than by an upstream's value.
    private static var noLane: Int { -1 }

    private let lock = Lock()
    private let downstream: Downstream
    private let laneCount: Int
    /// The queues, shared with the side subscribers; touched only with the lock held.
    let queues = Queues()
    /// The group the delivering thread takes next. It is filled with the lock held and emptied after the
    /// lock by the thread that set `isDelivering`, which alone touches it until it clears the flag; this
    /// hands a group out of the lock without an optional (a type-metadata look-up per value).
    private let handoff = JoiningRingBuffer<Output>()
    @exclusivity(unchecked) private nonisolated(unsafe) var upstreams: [(any Subscription)?]
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
    /// The lane whose `receive(_:)` runs the current delivery, or `noLane`.
    @exclusivity(unchecked) private nonisolated(unsafe) var servedLane = -1
    /// Demand for `servedLane`, returned from its `receive(_:)` when the delivery ends.
    @exclusivity(unchecked) private nonisolated(unsafe) var servedLaneDemand = Subscribers.Demand.none

    init(_ downstream: Downstream, lanes: Int) {
        self.downstream = downstream
        laneCount = lanes
        upstreams = Array(repeating: nil, count: lanes)
    }

    var description: String { "Zip" }

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

    func receive<Input>(_ input: Input, lane: Int, queue: JoiningRingBuffer<Input>) -> Subscribers.Demand {
        let starts = lock.withLock { () -> Bool in
            guard !isTerminated, finishedLanes & (1 << lane) == 0 else { return false }
            queue.append(input)
            guard !isDelivering, demand != .none, queues.emptyLanes == 0 else { return false }
            demand -= 1
            isDelivering = true
            servedLane = lane
            servedLaneDemand = .none
            handoff.append(queues.removeFirst())
            return true
        }
        return starts ? deliver() : .none
    }

    func receive(completion: Subscribers.Completion<Failure>, lane: Int) {
        var cancelled: [(any Subscription)?] = []
        var terminates = false
        let deliverable = lock.withLock { () -> Bool in
            guard !isTerminated, finishedLanes & (1 << lane) == 0 else { return false }
            finishedLanes |= 1 << lane
            switch completion {
            case .finished:
                upstreams[lane] = nil
                terminates = finishIfExhausted(cancelling: &cancelled)
            case .failure:
                // Combine cancels every upstream here, the failed one included.
                terminate(with: completion, cancelling: &cancelled)
                terminates = true
            }
            return claimPendingCompletion()
        }
        if terminates {
            discardQueues()
        }
        for upstream in cancelled {
            upstream?.cancel()
        }
        if deliverable {
            deliverPendingCompletion()
        }
    }

    // MARK: Subscription

    func request(_ demand: Subscribers.Demand) {
        APIViolation.checkDemand(demand)
        var targets: [(any Subscription)?] = []
        var skippedLane = Self.noLane
        let starts = lock.withLock { () -> Bool in
            guard !isTerminated else { return false }
            self.demand += demand
            requested += demand
            targets = upstreams
            if isDelivering {
                // The delivering thread picks up the new demand; the lane it serves gets its share as the
                // return value of its `receive(_:)`.
                if servedLane != Self.noLane {
                    servedLaneDemand += demand
                    skippedLane = servedLane
                }
                return false
            }
            // Groups can be waiting only if an upstream sent more than it was asked for.
            guard queues.emptyLanes == 0 else { return false }
            self.demand -= 1
            isDelivering = true
            servedLane = Self.noLane
            servedLaneDemand = .none
            handoff.append(queues.removeFirst())
            return true
        }
        for (lane, upstream) in targets.enumerated() where lane != skippedLane {
            upstream?.request(demand)
        }
        if starts {
            _ = deliver()
        }
    }

    func cancel() {
        var targets: [(any Subscription)?] = []
        let cancels = lock.withLock { () -> Bool in
            guard !isDownstreamDone else { return false }
            isDownstreamDone = true
            isTerminated = true
            hasPendingCompletion = false
            targets = upstreams
            upstreams = Array(repeating: nil, count: laneCount)
            return true
        }
        guard cancels else { return }
        discardQueues()
        for upstream in targets {
            upstream?.cancel()
        }
    }

    // MARK: Delivery

    /// Delivers the group in `handoff`, then every group completed meanwhile while demand lasts; finishes
    /// when an exhausted upstream has finished. Returns the demand for the served lane and requests the
    /// extra demand from the other lanes. Call after setting `isDelivering`.
    private func deliver() -> Subscribers.Demand {
        var item = handoff.removeFirst()
        var extra = Subscribers.Demand.none
        // Filled in when the delivery stops.
        var lane = Self.noLane
        var laneDemand = Subscribers.Demand.none
        var others: [(any Subscription)?] = []
        var cancelled: [(any Subscription)?] = []
        var terminates = false
        var completes = false
        while true {
            let more = downstream.receive(item)
            let continues = lock.withLock { () -> Bool in
                if more != .none {
                    demand += more
                    extra += more
                    if servedLane != Self.noLane {
                        servedLaneDemand += more
                    }
                }
                if !isTerminated, demand != .none, queues.emptyLanes == 0 {
                    demand -= 1
                    handoff.append(queues.removeFirst())
                    return true
                }
                terminates = finishIfExhausted(cancelling: &cancelled)
                isDelivering = false
                lane = servedLane
                if !isTerminated {
                    laneDemand = servedLaneDemand
                    if extra != .none {
                        others = upstreams
                    }
                }
                servedLaneDemand = .none
                completes = claimPendingCompletion()
                return false
            }
            guard continues else { break }
            item = handoff.removeFirst()
        }
        if terminates {
            discardQueues()
        }
        for upstream in cancelled {
            upstream?.cancel()
        }
        if completes {
            deliverPendingCompletion()
        }
        for (index, upstream) in others.enumerated() where index != lane {
            upstream?.request(extra)
        }
        return laneDemand
    }

    /// Ends the stream with `.finished` if a finished upstream has no waiting value (no group can be
    /// completed any more); returns whether it did. Call with the lock held.
    private func finishIfExhausted(cancelling cancelled: inout [(any Subscription)?]) -> Bool {
        guard !isTerminated, finishedLanes & queues.emptyLanes != 0 else { return false }
        terminateFinished(cancelling: &cancelled)
        return true
    }

    /// `terminate(with: .finished, ...)`, kept out of line: building a completion needs a type-metadata
    /// look-up that the per-value path would otherwise pay even when nothing finishes.
    @inline(never)
    private func terminateFinished(cancelling cancelled: inout [(any Subscription)?]) {
        terminate(with: .finished, cancelling: &cancelled)
    }

    /// Records `completion` as the one to deliver and hands out the upstreams to cancel. Call with the
    /// lock held, then `discardQueues()` after it.
    private func terminate(
        with completion: Subscribers.Completion<Failure>,
        cancelling cancelled: inout [(any Subscription)?]
    ) {
        isTerminated = true
        hasPendingCompletion = true
        pendingCompletion = completion
        cancelled = upstreams
        upstreams = Array(repeating: nil, count: laneCount)
    }

    /// Releases the values left in the queues once the stream has ended, outside the lock (they are
    /// moved out with it held; nothing adds to the queues any more).
    @inline(never)
    private func discardQueues() {
        let discarded = lock.withLock { queues.detachAll() }
        _ = discarded
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
