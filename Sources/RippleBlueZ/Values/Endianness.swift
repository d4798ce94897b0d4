/// The order in which the bytes of a multi-byte value are laid out.
///
/// GATT values are little-endian unless a profile says otherwise; UUIDs written as bytes are big-endian.
public enum Endianness: Sendable, Hashable {
    /// The least significant byte comes first (the GATT default).
    case little
    /// The most significant byte comes first (network order).
    case big
}
