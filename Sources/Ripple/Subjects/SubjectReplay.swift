/// What a subject hands a subscriber that asks for values before the next `send`: nothing
/// (``PassthroughSubject``) or the latest value (``CurrentValueSubject``).
internal protocol SubjectReplay<Output> {
    associatedtype Output
    /// The value a new or newly demanding subscriber receives first, if any.
    var latest: Output? { get }
    /// Remembers `value` as sent.
    mutating func record(_ value: Output)
}

/// No replay: a value sent while a subscriber has no demand is not delivered to it.
internal struct NoReplay<Output>: SubjectReplay {
    /// Not used: a stored byte keeps the property from being zero-sized, because ThreadSanitizer reports
    /// accesses to zero-sized stored properties of a class (all placed at the object's address) as races.
    private var sizePadding: UInt8 = 0
    var latest: Output? { nil }
    mutating func record(_ value: Output) {}
}

/// The latest value is kept and delivered to a subscriber as soon as it has demand and has not yet
/// received that value.
internal struct LatestValueReplay<Output>: SubjectReplay {
    var value: Output
    var latest: Output? { value }
    mutating func record(_ value: Output) { self.value = value }
}
