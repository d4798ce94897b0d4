/// What a subject hands a subscriber that asks for values before the next `send`: nothing
/// (``PassthroughSubject``) or the latest value (``CurrentValueSubject``).
@usableFromInline
internal protocol SubjectReplay<Output> {
    associatedtype Output
    /// The value a new or newly demanding subscriber receives first, if any.
    var latest: Output? { get }
    /// Remembers `value` as sent.
    mutating func record(_ value: Output)
}

/// No replay: a value sent while a subscriber has no demand is not delivered to it.
@usableFromInline
internal struct NoReplay<Output>: SubjectReplay {
    /// Not used: a stored byte keeps the property from being zero-sized, because ThreadSanitizer reports
    /// accesses to zero-sized stored properties of a class (all placed at the object's address) as races.
    @usableFromInline var sizePadding: UInt8 = 0
    @inlinable init() {}
    @inlinable var latest: Output? { nil }
    @inlinable mutating func record(_ value: Output) {}
}

/// The latest value is kept and delivered to a subscriber as soon as it has demand and has not yet
/// received that value.
@usableFromInline
internal struct LatestValueReplay<Output>: SubjectReplay {
    @usableFromInline var value: Output
    @inlinable init(value: Output) { self.value = value }
    @inlinable var latest: Output? { value }
    @inlinable mutating func record(_ value: Output) { self.value = value }
}
