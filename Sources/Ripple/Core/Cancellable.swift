/// Something whose activity can be cancelled, such as a subscription.
public protocol Cancellable {
    /// Stops the activity and frees what it holds. Calling it again has no effect.
    func cancel()
}

extension Cancellable {
    /// Wraps this cancellable in an ``AnyCancellable`` and appends it to `collection`, so it lives (and
    /// is cancelled) with the collection.
    ///
    /// - Parameter collection: The collection to append to.
    public func store<C: RangeReplaceableCollection>(in collection: inout C) where C.Element == AnyCancellable {
        AnyCancellable(self).store(in: &collection)
    }

    /// Wraps this cancellable in an ``AnyCancellable`` and inserts it into `set`.
    ///
    /// - Parameter set: The set to insert into.
    public func store(in set: inout Set<AnyCancellable>) {
        AnyCancellable(self).store(in: &set)
    }
}
