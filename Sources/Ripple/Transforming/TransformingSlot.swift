/// A mutable box for one value, for operator state that starts empty (`removeDuplicates`' previous value,
/// `last`'s latest value, `min`/`max`'s best value).
///
/// Holding `TransformingSlot<Value>?` rather than `Value?` keeps the per-value path of unspecialised generic
/// code free of `Optional<Value>` metadata look-ups (an optional class reference has a fixed layout): the
/// box is allocated once, with the first value, and then overwritten in place.
@usableFromInline
internal final class TransformingSlot<Value> {
    /// The value held. Only the upstream's serialised signals touch it, so the dynamic exclusivity check
    /// is skipped.
    @exclusivity(unchecked) @usableFromInline var value: Value

    @inlinable init(_ value: Value) {
        self.value = value
    }

    /// Puts `value` in `slot`: overwrites the box in place, allocating it only for the first value.
    @inlinable static func keep(_ value: Value, in slot: inout TransformingSlot<Value>?) {
        if let slot { slot.value = value } else { slot = TransformingSlot(value) }
    }

    /// Empties `slot`, returning the value it held, if any.
    @inlinable static func take(from slot: inout TransformingSlot<Value>?) -> Value? {
        defer { slot = nil }
        return slot?.value
    }
}
