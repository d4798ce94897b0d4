/// A first-in first-out queue of values for the joining operators (zip's per-upstream queues,
/// combineLatest's queue of combinations waiting for the delivering thread).
///
/// A class over raw storage rather than an array: from the operators' generic code (which is not
/// specialised for the client's types) each operation then costs no type-metadata look-up, and the
/// storage is kept as the queue drains, so a steady flow allocates nothing. Not thread-safe: its owner
/// touches it only while holding its lock.
final class JoiningRingBuffer<Element> {
    // Every access happens with the owner's lock held, so the dynamic exclusivity checks (a
    // thread-local bookkeeping call per access in unspecialised code) are turned off.
    @exclusivity(unchecked) private var storage: UnsafeMutablePointer<Element>?
    @exclusivity(unchecked) private var capacity = 0
    @exclusivity(unchecked) private var head = 0
    /// How many values are waiting.
    @exclusivity(unchecked) private(set) var count = 0

    init() {}

    deinit {
        removeAll()
        storage?.deallocate()
    }

    /// Whether no value is waiting.
    var isEmpty: Bool { count == 0 }

    /// Appends `element` at the back, growing the storage when it is full.
    func append(_ element: Element) {
        if count == capacity {
            grow()
        }
        guard let storage else { return }
        var index = head + count
        if index >= capacity {
            index -= capacity
        }
        (storage + index).initialize(to: element)
        count += 1
    }

    /// Removes and returns the oldest value. The queue must not be empty (callers check ``isEmpty``).
    func removeFirst() -> Element {
        assert(count > 0, "removeFirst on an empty queue")
        // `storage` is non-nil whenever `count > 0`.
        return takeFirst(from: storage.unsafelyUnwrapped)
    }

    /// Moves every waiting value into a new queue and returns it, leaving this one empty, so the values
    /// can be released after the owner's lock.
    func detachAll() -> JoiningRingBuffer {
        let detached = JoiningRingBuffer()
        swap(&detached.storage, &storage)
        swap(&detached.capacity, &capacity)
        swap(&detached.head, &head)
        swap(&detached.count, &count)
        return detached
    }

    /// Destroys every waiting value, keeping the storage.
    func removeAll() {
        guard let storage else { return }
        while count > 0 {
            (storage + head).deinitialize(count: 1)
            advanceHead()
            count -= 1
        }
        head = 0
    }

    private func takeFirst(from storage: UnsafeMutablePointer<Element>) -> Element {
        let element = (storage + head).move()
        advanceHead()
        count -= 1
        return element
    }

    private func advanceHead() {
        head += 1
        if head == capacity {
            head = 0
        }
    }

    private func grow() {
        let newCapacity = Swift.max(8, capacity * 2)
        let grown = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        if let storage {
            let firstPart = Swift.min(count, capacity - head)
            grown.moveInitialize(from: storage + head, count: firstPart)
            (grown + firstPart).moveInitialize(from: storage, count: count - firstPart)
            storage.deallocate()
        }
        storage = grown
        capacity = newCapacity
        head = 0
    }
}
