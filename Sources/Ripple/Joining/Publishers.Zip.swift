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
        public init(_ a: A, _ b: B) {
            self.a = a
            self.b = b
        }

        /// Subscribes to both upstreams, then hands `subscriber` its `"Zip"` subscription.
        public func receive<S: Subscriber>(subscriber: S)
        where S.Failure == B.Failure, S.Input == (A.Output, B.Output) {
            let inner = ZipInner<ZipQueues2<A.Output, B.Output>, S>(subscriber, lanes: 2)
            a.subscribe(ZipSide(inner, lane: 0) { $0.a.append($1) })
            b.subscribe(ZipSide(inner, lane: 1) { $0.b.append($1) })
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
        public init(_ a: A, _ b: B, _ c: C) {
            self.a = a
            self.b = b
            self.c = c
        }

        /// Subscribes to the three upstreams, then hands `subscriber` its `"Zip"` subscription.
        public func receive<S: Subscriber>(subscriber: S)
        where S.Failure == C.Failure, S.Input == (A.Output, B.Output, C.Output) {
            let inner = ZipInner<ZipQueues3<A.Output, B.Output, C.Output>, S>(subscriber, lanes: 3)
            a.subscribe(ZipSide(inner, lane: 0) { $0.a.append($1) })
            b.subscribe(ZipSide(inner, lane: 1) { $0.b.append($1) })
            c.subscribe(ZipSide(inner, lane: 2) { $0.c.append($1) })
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
        public init(_ a: A, _ b: B, _ c: C, _ d: D) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
        }

        /// Subscribes to the four upstreams, then hands `subscriber` its `"Zip"` subscription.
        public func receive<S: Subscriber>(subscriber: S)
        where S.Failure == D.Failure, S.Input == (A.Output, B.Output, C.Output, D.Output) {
            let inner = ZipInner<ZipQueues4<A.Output, B.Output, C.Output, D.Output>, S>(subscriber, lanes: 4)
            a.subscribe(ZipSide(inner, lane: 0) { $0.a.append($1) })
            b.subscribe(ZipSide(inner, lane: 1) { $0.b.append($1) })
            c.subscribe(ZipSide(inner, lane: 2) { $0.c.append($1) })
            d.subscribe(ZipSide(inner, lane: 3) { $0.d.append($1) })
            inner.start()
        }
    }
}

// MARK: - Equatable

extension Publishers.Zip: Equatable where A: Equatable, B: Equatable {
    /// Whether both publishers zip equal upstreams.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b
    }
}

extension Publishers.Zip3: Equatable where A: Equatable, B: Equatable, C: Equatable {
    /// Whether both publishers zip equal upstreams.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c
    }
}

extension Publishers.Zip4: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable {
    /// Whether both publishers zip equal upstreams.
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
    /// Removes and returns the oldest value of every upstream, or `nil` when one of them has none.
    mutating func dequeue() -> Output?
}

private struct ZipQueues2<A, B>: ZipQueues {
    var a = ZipQueue<A>()
    var b = ZipQueue<B>()

    var emptyLanes: UInt8 {
        (a.isEmpty ? 1 : 0) | (b.isEmpty ? 2 : 0)
    }

    mutating func dequeue() -> (A, B)? {
        guard !a.isEmpty, !b.isEmpty, let first = a.popFirst(), let second = b.popFirst() else { return nil }
        return (first, second)
    }
}

private struct ZipQueues3<A, B, C>: ZipQueues {
    var a = ZipQueue<A>()
    var b = ZipQueue<B>()
    var c = ZipQueue<C>()

    var emptyLanes: UInt8 {
        (a.isEmpty ? 1 : 0) | (b.isEmpty ? 2 : 0) | (c.isEmpty ? 4 : 0)
    }

    mutating func dequeue() -> (A, B, C)? {
        guard !a.isEmpty, !b.isEmpty, !c.isEmpty,
            let first = a.popFirst(), let second = b.popFirst(), let third = c.popFirst()
        else { return nil }
        return (first, second, third)
    }
}

private struct ZipQueues4<A, B, C, D>: ZipQueues {
    var a = ZipQueue<A>()
    var b = ZipQueue<B>()
    var c = ZipQueue<C>()
    var d = ZipQueue<D>()

    var emptyLanes: UInt8 {
        (a.isEmpty ? 1 : 0) | (b.isEmpty ? 2 : 0) | (c.isEmpty ? 4 : 0) | (d.isEmpty ? 8 : 0)
    }

    mutating func dequeue() -> (A, B, C, D)? {
        guard !a.isEmpty, !b.isEmpty, !c.isEmpty, !d.isEmpty,
            let first = a.popFirst(), let second = b.popFirst(), let third = c.popFirst(),
            let fourth = d.popFirst()
        else { return nil }
        return (first, second, third, fourth)
    }
}

/// A first-in first-out ring buffer of one upstream's waiting values. Its storage is kept as it drains,
/// so a steady flow allocates nothing.
private struct ZipQueue<Element> {
    private var slots: ContiguousArray<Element?> = []
    private var head = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

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

// MARK: - Side subscriber

/// The subscriber attached to one upstream: it hands that upstream's signals to the shared inner
/// subscription, tagged with the upstream's lane.
private struct ZipSide<Input, Queues: ZipQueues, Downstream: Subscriber>: Subscriber, CustomStringConvertible
where Downstream.Input == Queues.Output {
    typealias Failure = Downstream.Failure

    let combineIdentifier = CombineIdentifier()
    private let inner: ZipInner<Queues, Downstream>
    private let lane: Int
    /// Appends a value to this lane's queue.
    private let enqueue: (inout Queues, Input) -> Void

    init(_ inner: ZipInner<Queues, Downstream>, lane: Int, enqueue: @escaping (inout Queues, Input) -> Void) {
        self.inner = inner
        self.lane = lane
        self.enqueue = enqueue
    }

    var description: String { "Zip" }

    func receive(subscription: any Subscription) {
        inner.receive(subscription: subscription, lane: lane)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        inner.receive(input, lane: lane, enqueue: enqueue)
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
private final class ZipInner<Queues: ZipQueues, Downstream: Subscriber>: Subscription, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible
where Downstream.Input == Queues.Output {
    typealias Output = Queues.Output
    typealias Failure = Downstream.Failure

    /// The lane value of a delivery started by `request(_:)` rather than by an upstream's value.
    private static var noLane: Int { -1 }

    private let lock = Lock()
    private let laneCount: Int
    /// `nil` once the completion has been handed out or the subscription was cancelled.
    private nonisolated(unsafe) var downstream: Downstream?
    private nonisolated(unsafe) var queues = Queues()
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
    /// The lane whose `receive(_:)` runs the current delivery, or `noLane`.
    private nonisolated(unsafe) var servedLane = -1
    /// Demand for `servedLane`, returned from its `receive(_:)` when the delivery ends.
    private nonisolated(unsafe) var servedLaneDemand = Subscribers.Demand.none

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

    func receive<Input>(_ input: Input, lane: Int, enqueue: (inout Queues, Input) -> Void) -> Subscribers.Demand {
        let start = lock.withLock { () -> (Downstream, Output)? in
            guard !isTerminated, finishedLanes & (1 << lane) == 0 else { return nil }
            enqueue(&queues, input)
            guard !isDelivering, demand != .none, let downstream, let group = queues.dequeue() else { return nil }
            demand -= 1
            isDelivering = true
            servedLane = lane
            servedLaneDemand = .none
            return (downstream, group)
        }
        guard let (target, group) = start else { return .none }
        return deliver(group, to: target)
    }

    func receive(completion: Subscribers.Completion<Failure>, lane: Int) {
        switch completion {
        case .finished:
            let (cancelled, deliverable, _) = lock.withLock {
                () -> ([(any Subscription)?], DeliverableCompletion?, Queues?) in
                guard !isTerminated, finishedLanes & (1 << lane) == 0 else { return ([], nil, nil) }
                finishedLanes |= 1 << lane
                upstreams[lane] = nil
                guard let (cancelled, discarded) = finishIfExhausted() else { return ([], nil, nil) }
                return (cancelled, takeDeliverableCompletion(), discarded)
            }
            for upstream in cancelled {
                upstream?.cancel()
            }
            deliverable?.deliver()
        case .failure:
            let (cancelled, deliverable, _) = lock.withLock {
                () -> ([(any Subscription)?], DeliverableCompletion?, Queues?) in
                guard !isTerminated, finishedLanes & (1 << lane) == 0 else { return ([], nil, nil) }
                isTerminated = true
                finishedLanes |= 1 << lane
                // Combine cancels every upstream here, the failed one included.
                let cancelled = upstreams
                upstreams = Array(repeating: nil, count: laneCount)
                pendingCompletion = completion
                return (cancelled, takeDeliverableCompletion(), discardQueues())
            }
            for upstream in cancelled {
                upstream?.cancel()
            }
            deliverable?.deliver()
        }
    }

    // MARK: Subscription

    func request(_ demand: Subscribers.Demand) {
        APIViolation.checkDemand(demand)
        let (targets, skippedLane, start) = lock.withLock {
            () -> ([(any Subscription)?], Int, (Downstream, Output)?) in
            guard !isTerminated else { return ([], Self.noLane, nil) }
            self.demand += demand
            requested += demand
            if isDelivering {
                // The delivering thread picks up the new demand; the lane it serves gets its share as the
                // return value of its `receive(_:)`.
                if servedLane != Self.noLane {
                    servedLaneDemand += demand
                }
                return (upstreams, servedLane, nil)
            }
            // Groups can be waiting only if an upstream sent more than it was asked for.
            guard let downstream, let group = queues.dequeue() else { return (upstreams, Self.noLane, nil) }
            self.demand -= 1
            isDelivering = true
            servedLane = Self.noLane
            servedLaneDemand = .none
            return (upstreams, Self.noLane, (downstream, group))
        }
        for (lane, upstream) in targets.enumerated() where lane != skippedLane {
            upstream?.request(demand)
        }
        if let (target, group) = start {
            _ = deliver(group, to: target)
        }
    }

    func cancel() {
        let (targets, _) = lock.withLock { () -> ([(any Subscription)?], (Downstream?, Queues)?) in
            guard !isTerminated || downstream != nil else { return ([], nil) }
            isTerminated = true
            pendingCompletion = nil
            let targets = upstreams
            upstreams = Array(repeating: nil, count: laneCount)
            let released = downstream
            downstream = nil
            return (targets, (released, discardQueues()))
        }
        for upstream in targets {
            upstream?.cancel()
        }
    }

    // MARK: Delivery

    /// Delivers `first`, then every group completed meanwhile while demand lasts; finishes when an
    /// exhausted upstream has finished. Returns the demand for the served lane and requests the extra
    /// demand from the other lanes.
    private func deliver(_ first: Output, to target: Downstream) -> Subscribers.Demand {
        var item = first
        var extra = Subscribers.Demand.none
        while true {
            let more = target.receive(item)
            let step = lock.withLock { () -> DeliveryStep in
                if more != .none {
                    demand += more
                    extra += more
                    if servedLane != Self.noLane {
                        servedLaneDemand += more
                    }
                }
                if !isTerminated, demand != .none, let next = queues.dequeue() {
                    demand -= 1
                    return .next(next)
                }
                let exhausted = finishIfExhausted()
                isDelivering = false
                let laneDemand = isTerminated ? .none : servedLaneDemand
                servedLaneDemand = .none
                return .done(
                    DeliveryEnd(
                        servedLane: servedLane,
                        laneDemand: laneDemand,
                        others: extra == .none || isTerminated ? [] : upstreams,
                        cancelled: exhausted?.cancelled ?? [],
                        completion: takeDeliverableCompletion()
                    ),
                    exhausted?.discarded
                )
            }
            switch step {
            case .next(let next):
                item = next
            case .done(let end, _):
                for upstream in end.cancelled {
                    upstream?.cancel()
                }
                end.completion?.deliver()
                for (index, upstream) in end.others.enumerated() where index != end.servedLane {
                    upstream?.request(extra)
                }
                return end.laneDemand
            }
        }
    }

    /// What a delivery does after the downstream has taken a group.
    private enum DeliveryStep {
        /// Deliver this group next.
        case next(Output)
        /// Stop; the queues are the ones a finish discarded, released after the lock.
        case done(DeliveryEnd, Queues?)
    }

    /// What is left to do, outside the lock, when a delivery stops.
    private struct DeliveryEnd {
        /// The lane whose `receive(_:)` ran the delivery, or `noLane`.
        let servedLane: Int
        /// What that lane's `receive(_:)` returns.
        let laneDemand: Subscribers.Demand
        /// The upstreams to request the downstream's extra demand from (all but `servedLane`).
        let others: [(any Subscription)?]
        /// The upstreams to cancel because the stream finished.
        let cancelled: [(any Subscription)?]
        let completion: DeliverableCompletion?
    }

    /// Ends the stream with `.finished` if a finished upstream has no waiting value (no group can be
    /// completed any more); returns the upstreams to cancel and the queues to release after the lock.
    /// Call with the lock held.
    private func finishIfExhausted() -> (cancelled: [(any Subscription)?], discarded: Queues)? {
        guard !isTerminated, finishedLanes & queues.emptyLanes != 0 else { return nil }
        isTerminated = true
        pendingCompletion = .finished
        let cancelled = upstreams
        upstreams = Array(repeating: nil, count: laneCount)
        return (cancelled, discardQueues())
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

    /// Moves the queues out, to be released after the lock. Call with the lock held.
    private func discardQueues() -> Queues {
        var discarded = Queues()
        swap(&discarded, &queues)
        return discarded
    }
}
