/// A first-in, first-out queue on a growable circular buffer: `append` and `popFirst` in O(1)
/// amortised, storage reused once grown (no allocation in steady state). Its capacity is always a power of
/// two, and the index arithmetic wraps (`&+`) rather than checking for overflow it cannot have.
///
/// Used by the subjects, `share(replay:)`, the async bridges and the combining operators (`flatMap`,
/// `merge`, `switchToLatest`: the values held while another call is delivering to the downstream).
@usableFromInline
package struct RingBuffer<Element> {
    @usableFromInline var storage: ContiguousArray<Element?> = []
    @usableFromInline var head = 0
    /// The number of queued elements.
    @usableFromInline package var count = 0

    @inlinable package init() {}

    /// Whether the queue is empty.
    @inlinable package var isEmpty: Bool { count == 0 }

    /// The oldest element, if any.
    @inlinable package var first: Element? {
        count == 0 ? nil : storage[head]
    }

    /// Adds `element` at the end.
    @inlinable package mutating func append(_ element: Element) {
        if count == storage.count { grow() }
        storage[(head &+ count) & (storage.count &- 1)] = element
        count &+= 1
    }

    /// Removes and returns the oldest element, or `nil` when empty.
    @inlinable package mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head]
        storage[head] = nil
        head = (head &+ 1) & (storage.count &- 1)
        count &-= 1
        return element
    }

    /// Removes and returns the newest element, or `nil` when empty.
    @inlinable package mutating func popLast() -> Element? {
        guard count > 0 else { return nil }
        let index = (head &+ count &- 1) & (storage.count &- 1)
        let element = storage[index]
        storage[index] = nil
        count &-= 1
        return element
    }

    /// Removes every element, keeping the storage.
    @inlinable package mutating func removeAll() {
        while popFirst() != nil {}
        head = 0
    }

    /// Doubles the storage (capacity stays a power of two), keeping the order.
    @inlinable mutating func grow() {
        let newCapacity = Swift.max(4, storage.count * 2)
        var newStorage = ContiguousArray<Element?>(repeating: nil, count: newCapacity)
        for offset in 0..<count {
            newStorage[offset] = storage[(head &+ offset) & (storage.count &- 1)]
        }
        storage = newStorage
        head = 0
    }
}

extension RingBuffer: Sequence {
    /// Iterates from the oldest element to the newest.
    @usableFromInline
    package struct Iterator: IteratorProtocol {
        @usableFromInline let buffer: RingBuffer
        @usableFromInline var offset = 0

        @inlinable init(buffer: RingBuffer) { self.buffer = buffer }

        @inlinable package mutating func next() -> Element? {
            guard offset < buffer.count else { return nil }
            defer { offset += 1 }
            return buffer.storage[(buffer.head &+ offset) & (buffer.storage.count &- 1)]
        }
    }

    @inlinable package func makeIterator() -> Iterator {
        Iterator(buffer: self)
    }
}
