/// Where a ``BufferedSubscription`` or a state stream hands values and completions to its subscriber: the
/// thread that offers or requests, or one thread (an event loop's) reached by enqueuing work onto it.
///
/// Deliveries of one subscription never overlap and never re-enter the subscriber. With a loop context,
/// a value offered or a demand requested on another thread is delivered on the loop thread, later.
@usableFromInline
package struct DeliveryContext: Sendable {
    /// Whether the calling thread may deliver now.
    @usableFromInline package let isCurrent: @Sendable () -> Bool
    /// Runs work where deliveries happen (dropped if that place has stopped: nothing is delivered then).
    @usableFromInline package let enqueue: @Sendable (@escaping () -> Void) -> Void

    /// A context from its two operations.
    ///
    /// - Parameters:
    ///   - isCurrent: whether the calling thread may deliver now.
    ///   - enqueue: runs work where deliveries happen.
    package init(
        isCurrent: @escaping @Sendable () -> Bool, enqueue: @escaping @Sendable (@escaping () -> Void) -> Void
    ) {
        self.isCurrent = isCurrent
        self.enqueue = enqueue
    }

    /// Delivers on the thread that offers a value or requests demand, whichever finds a value to deliver.
    package static let callerThread = DeliveryContext(isCurrent: { true }, enqueue: { $0() })

    /// Runs `work` now when the calling thread may deliver, else enqueues it.
    ///
    /// - Parameter work: what to run where deliveries happen.
    @inlinable @inline(__always)
    package func run(_ work: @escaping () -> Void) {
        if isCurrent() { work() } else { enqueue(work) }
    }
}
