import Synchronization

extension Publishers {
    /// A publisher that emits the elements of a sequence, in order, as they are demanded, then finishes.
    ///
    /// Each subscriber iterates the sequence afresh. The subscription looks one element ahead, so
    /// `.finished` follows the last element at once, even when no demand remains; an empty sequence gives
    /// an empty subscription (described as `"Empty"`) and `.finished` at once. The subscription is
    /// described as the sequence itself until it finishes or is cancelled, then as `"Sequence"`.
    ///
    /// Delivery is iterative: a subscriber that asks for one more value at a time (by returning demand
    /// from `receive(_:)` or by calling `request` from inside it) is served by a loop, not by recursion,
    /// so the stack does not grow with the number of elements.
    public struct Sequence<Elements: Swift.Sequence, Failure: Error>: Publisher {
        /// The sequence's element type.
        public typealias Output = Elements.Element

        /// The sequence whose elements are published.
        public let sequence: Elements

        /// Creates a publisher of the elements of `sequence`.
        ///
        /// - Parameter sequence: The elements to publish, in order.
        @inlinable
        public init(sequence: Elements) {
            self.sequence = sequence
        }

        /// Starts iterating the sequence for `subscriber`: `.finished` at once when it is empty, else a
        /// subscription that delivers elements as requested.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Elements.Element, S.Failure == Failure {
            var iterator = sequence.makeIterator()
            guard let first = iterator.next() else {
                subscriber.receive(subscription: Subscriptions.empty)
                subscriber.receive(completion: .finished)
                return
            }
            let subscription = Inner(
                downstream: subscriber,
                sequence: sequence,
                iterator: iterator,
                first: first,
                completion: .finished,
                finishedDescription: "Sequence",
                mirrorsCompletion: false
            )
            subscriber.receive(subscription: subscription)
        }
    }
}

extension Publishers.Sequence: Equatable where Elements: Equatable {}

extension Publishers.Sequence: Sendable where Elements: Sendable {}

extension Sequence {
    /// A publisher that emits this sequence's elements as they are demanded, then finishes; it never
    /// fails.
    @inlinable
    public var publisher: Publishers.Sequence<Self, Never> {
        Publishers.Sequence(sequence: self)
    }
}

extension Publishers.Sequence {
    /// The subscription that delivers a sequence's elements one by one, as demanded, then a completion
    /// (`.finished` for ``Publishers/Sequence``, the recorded one for ``Record``).
    ///
    /// Demand, "a thread is delivering" and "terminated" live together in one atomic word, so the
    /// per-element path is a single compare-and-swap. One thread at a time delivers: the one whose
    /// `request` set the delivering bit. It owns `downstream`, `iterator` and `upcoming` while the bit is
    /// set (they are plain storage, handed over through the atomic's acquire/release ordering); a `request`
    /// made meanwhile, re-entrantly from `receive(_:)` or from another thread, only adds demand, which the
    /// loop picks up, so the stack never grows. When no thread delivers, whoever terminates the
    /// subscription owns that storage and releases it. `sequence` (shown by the description) is guarded by
    /// the lock. Nothing from outside (subscriber, iterator, deinitialisers) runs with the lock held.
    @usableFromInline
    internal final class Inner<Downstream: Subscriber>: Subscription, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    where Downstream.Input == Elements.Element, Downstream.Failure == Failure {
        @usableFromInline typealias Element = Elements.Element

        /// Demand, delivering and terminated flags; see ``SequenceDeliveryState``.
        @usableFromInline let state = Atomic<UInt>(0)
        /// Owned by the delivering thread, or by the terminating thread when none delivers.
        @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var downstream: Downstream?
        /// Owned as `downstream`: the iterator, stored while no thread is delivering.
        @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var iterator: Elements.Iterator?
        /// Owned as `downstream`: the element fetched ahead, stored while no thread is delivering.
        @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var upcoming: Element?

        @usableFromInline let lock = Lock()
        /// The sequence, for the description; released on completion or cancellation.
        @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var sequence: Elements?

        @usableFromInline let completion: Subscribers.Completion<Failure>
        @usableFromInline let finishedDescription: String
        @usableFromInline let mirrorsCompletion: Bool

        /// - Parameters:
        ///   - iterator: the sequence's iterator, already advanced past `first`.
        ///   - first: the first element (the caller handles an empty sequence itself).
        ///   - completion: what to send after the last element.
        ///   - finishedDescription: the description once completed or cancelled.
        ///   - mirrorsCompletion: whether the mirror shows `completion` besides `sequence`.
        @inlinable
        init(
            downstream: Downstream,
            sequence: Elements,
            iterator: Elements.Iterator,
            first: Element,
            completion: Subscribers.Completion<Failure>,
            finishedDescription: String,
            mirrorsCompletion: Bool
        ) {
            self.downstream = downstream
            self.sequence = sequence
            self.iterator = iterator
            self.upcoming = first
            self.completion = completion
            self.finishedDescription = finishedDescription
            self.mirrorsCompletion = mirrorsCompletion
        }

        /// The sequence's description while active, else `finishedDescription`.
        @usableFromInline var description: String {
            let sequence = lock.withLock { self.sequence }
            return sequence.map { String(describing: $0) } ?? finishedDescription
        }

        /// `sequence` (empty once finished or cancelled), and `completion` for a ``Record``.
        @usableFromInline var customMirror: Mirror {
            let sequence = lock.withLock { self.sequence }
            let shown: Any = sequence.map { $0 as Any } ?? ([Element]() as Any)
            var children: [Mirror.Child] = [("sequence", shown)]
            if mirrorsCompletion {
                children.append(("completion", completion))
            }
            return Mirror(self, children: children)
        }

        @usableFromInline var playgroundDescription: Any { description }

        /// Adds `demand` and, unless a delivery loop is already running, delivers until the demand is
        /// used up, the sequence ends, or the subscription is cancelled.
        ///
        /// As in Combine, a demand of `.none` is accepted here (it adds nothing) rather than trapping.
        @inlinable
        func request(_ demand: Subscribers.Demand) {
            var current = state.load(ordering: .relaxed)
            while true {
                if SequenceDeliveryState.isTerminated(current) { return }
                let pending = SequenceDeliveryState.adding(demand, to: SequenceDeliveryState.demand(of: current))
                let startsDelivering = !SequenceDeliveryState.isDelivering(current) && pending > 0
                let next =
                    startsDelivering
                    ? SequenceDeliveryState.delivering | SequenceDeliveryState.takingOne(from: pending)
                    : (current & SequenceDeliveryState.delivering) | pending
                let (exchanged, original) = state.compareExchange(
                    expected: current, desired: next, ordering: .acquiringAndReleasing
                )
                if exchanged {
                    if startsDelivering { startDelivering() }
                    return
                }
                current = original
            }
        }

        /// Stops delivery at once and releases the subscriber and the sequence; later calls do nothing.
        @inlinable
        func cancel() {
            var current = state.load(ordering: .relaxed)
            while true {
                if SequenceDeliveryState.isTerminated(current) { return }
                let (exchanged, original) = state.compareExchange(
                    expected: current, desired: current | SequenceDeliveryState.terminated,
                    ordering: .acquiringAndReleasing
                )
                if exchanged { break }
                current = original
            }
            // A delivering thread releases the storage it owns when it sees the cancel; otherwise it is ours.
            if !SequenceDeliveryState.isDelivering(current) {
                releaseOwnedStorage()
            }
            releaseSequence()
        }

        /// Runs the delivery loop on this thread, which has just set the delivering bit (and so owns the
        /// stored iteration) and taken one unit of demand.
        @inlinable
        func startDelivering() {
            var iterator: Elements.Iterator?
            var upcoming: Element?
            swap(&iterator, &self.iterator)
            swap(&upcoming, &self.upcoming)
            guard let downstream, var iterator, let upcoming else {
                // Unreachable: a live subscription that nobody delivers to holds all three.
                return
            }
            run(delivering: upcoming, from: &iterator, to: downstream)
        }

        /// The delivery loop: one compare-and-swap per element. A ``Subscribers/Sink`` gets the elements as
        /// one run (its closures held once for the loop, not once per element, see
        /// ``Subscribers/Sink/beginRun()``); in code specialised for the subscriber's type that choice is
        /// made at compile time.
        @inlinable
        func run(delivering first: Element, from iterator: inout Elements.Iterator, to downstream: Downstream) {
            let exhausted: Bool
            if let sink = downstream as? Subscribers.Sink<Element, Failure> {
                guard let run = sink.beginRun() else {
                    // The sink has ended, so this subscription is over too (a cancelled sink has cancelled it).
                    cancel()
                    releaseOwnedStorage()
                    return
                }
                exhausted = deliver(first, from: &iterator) { run.receive($0) }
                sink.endRun()
            } else {
                exhausted = deliver(first, from: &iterator) { downstream.receive($0) }
            }
            guard exhausted else { return }
            // The sequence is exhausted: complete, unless cancelled meanwhile.
            var current = state.load(ordering: .relaxed)
            while true {
                if SequenceDeliveryState.isTerminated(current) {
                    releaseOwnedStorage()
                    return
                }
                let (exchanged, original) = state.compareExchange(
                    expected: current, desired: SequenceDeliveryState.terminated, ordering: .acquiringAndReleasing
                )
                if exchanged { break }
                current = original
            }
            releaseOwnedStorage()
            releaseSequence()
            downstream.receive(completion: completion)
        }

        /// Hands elements to `receive` while there is demand; returns `true` when the sequence is exhausted
        /// (the caller completes), `false` when delivery paused (the iteration is handed back) or the
        /// subscription was cancelled (the storage is released).
        @inlinable @inline(__always)
        func deliver(
            _ first: Element, from iterator: inout Elements.Iterator, to receive: (Element) -> Subscribers.Demand
        ) -> Bool {
            var element = first
            while true {
                // Look ahead (as Combine does, before delivering) so that the completion can follow the
                // last element without further demand.
                let following = iterator.next()
                let more = receive(element)
                guard let following else { return true }
                switch settleAfterElement(adding: more) {
                case .deliver:
                    element = following
                case .idle:
                    // Store the iteration, then publish it by clearing the delivering bit.
                    handBack(iterator, following)
                    if pause() { return false }
                    // Demand arrived meanwhile: keep going with the local iteration (the stored copy is
                    // stale but unread, and is overwritten or released later).
                    element = following
                case .cancelled:
                    releaseOwnedStorage()
                    return false
                }
            }
        }

        /// After an element: adds `more` and takes one unit of demand for the next element if there is
        /// any. Leaves the state unchanged when there is none (`.idle`) or when cancelled.
        @inlinable
        func settleAfterElement(adding more: Subscribers.Demand) -> SequenceDeliveryAction {
            var current = state.load(ordering: .relaxed)
            while true {
                if SequenceDeliveryState.isTerminated(current) { return .cancelled }
                let pending = SequenceDeliveryState.adding(more, to: SequenceDeliveryState.demand(of: current))
                if pending == 0 { return .idle }
                let next = SequenceDeliveryState.delivering | SequenceDeliveryState.takingOne(from: pending)
                let (exchanged, original) = state.compareExchange(
                    expected: current, desired: next, ordering: .acquiringAndReleasing
                )
                if exchanged { return .deliver }
                current = original
            }
        }

        /// Clears the delivering bit if there is still no demand; returns `true` when delivery stopped
        /// (paused, or cancelled, in which case it also releases the storage). Returns `false` when demand
        /// arrived meanwhile, having taken one unit of it: the caller goes on delivering.
        @inlinable
        func pause() -> Bool {
            var current = state.load(ordering: .relaxed)
            while true {
                if SequenceDeliveryState.isTerminated(current) {
                    releaseOwnedStorage()
                    return true
                }
                let pending = SequenceDeliveryState.demand(of: current)
                let next =
                    pending == 0 ? 0 : SequenceDeliveryState.delivering | SequenceDeliveryState.takingOne(from: pending)
                let (exchanged, original) = state.compareExchange(
                    expected: current, desired: next, ordering: .acquiringAndReleasing
                )
                if exchanged { return pending == 0 }
                current = original
            }
        }

        /// Stores the iteration for the next delivering thread (called by the delivering thread only).
        @inlinable
        func handBack(_ iterator: Elements.Iterator, _ upcoming: Element) {
            self.iterator = iterator
            self.upcoming = upcoming
        }

        /// Drops the subscriber and the iteration (called only by their owner).
        @inlinable
        func releaseOwnedStorage() {
            downstream = nil
            iterator = nil
            upcoming = nil
        }

        /// Drops the sequence, outside the lock.
        @inlinable
        func releaseSequence() {
            var sequence: Elements?
            lock.withLock { swap(&sequence, &self.sequence) }
        }
    }
}

/// The bits of a sequence subscription's atomic state word: the top bit says terminated (completed or
/// cancelled), the next says a thread is delivering, and the rest hold the outstanding demand, all ones
/// standing for unlimited. Plain functions on `UInt`, so they cost no generic metadata lookups.
@usableFromInline
internal enum SequenceDeliveryState {
    @inlinable static var terminated: UInt { 1 << (UInt.bitWidth - 1) }
    @inlinable static var delivering: UInt { 1 << (UInt.bitWidth - 2) }
    @inlinable static var unlimited: UInt { delivering - 1 }

    @inlinable static func isTerminated(_ state: UInt) -> Bool { state & terminated != 0 }
    @inlinable static func isDelivering(_ state: UInt) -> Bool { state & delivering != 0 }
    @inlinable static func demand(of state: UInt) -> UInt { state & unlimited }

    /// `pending` increased by `demand`, saturating at unlimited.
    @inlinable static func adding(_ demand: Subscribers.Demand, to pending: UInt) -> UInt {
        guard let count = demand.max else { return unlimited }
        return count == 0 ? pending : min(pending + UInt(count), unlimited)
    }

    /// `pending` less the one unit taken for an element (unlimited stays unlimited).
    @inlinable static func takingOne(from pending: UInt) -> UInt {
        pending == unlimited ? pending : pending - 1
    }
}

/// What a sequence subscription's delivering thread does after an element. Not generic, so it costs no
/// metadata lookups in unoptimised builds.
@usableFromInline
internal enum SequenceDeliveryAction {
    /// Deliver the element fetched ahead (one unit of demand has been taken for it).
    case deliver
    /// No demand left: pause, handing the iteration back.
    case idle
    /// The subscription was cancelled: stop for good.
    case cancelled
}
