/// A first-in, first-out queue on a growable circular buffer, for the values the combining operators
/// (`flatMap`, `merge`, `switchToLatest`) hold while another thread, or an outer call on the same
/// thread, is delivering to their downstream.
///
/// `append` and `popFirst` are O(1) amortised; once grown, the storage is reused, so a queue in steady
/// state allocates nothing. Its capacity is always a power of two.
internal struct CombiningQueue<Element> {
    private var storage: ContiguousArray<Element?> = []
    private var head = 0
    /// The number of queued elements.
    private(set) var count = 0

    init() {}

    /// Whether the queue is empty.
    var isEmpty: Bool { count == 0 }

    /// Adds `element` after the newest one.
    mutating func append(_ element: Element) {
        if count == storage.count { grow() }
        storage[(head &+ count) & (storage.count &- 1)] = element
        count &+= 1
    }

    /// Removes and returns the oldest element, or `nil` when the queue is empty.
    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head]
        storage[head] = nil
        head = (head &+ 1) & (storage.count &- 1)
        count &-= 1
        return element
    }

    /// Doubles the storage, keeping the order and starting it at index 0.
    private mutating func grow() {
        let capacity = Swift.max(4, storage.count * 2)
        var grown = ContiguousArray<Element?>(repeating: nil, count: capacity)
        for offset in 0..<count {
            grown[offset] = storage[(head &+ offset) & (storage.count &- 1)]
        }
        storage = grown
        head = 0
    }
}
