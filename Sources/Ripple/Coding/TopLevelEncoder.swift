/// A type that encodes a whole value at once into one output, such as Foundation's `JSONEncoder` producing
/// `Data`: what ``Publisher/encode(encoder:)`` encodes each value with.
///
/// Ripple declares the protocol and nothing that conforms to it, so that the module needs no Foundation;
/// `RippleFoundation` makes `JSONEncoder` and `PropertyListEncoder` conform.
public protocol TopLevelEncoder {
    /// What the encoder produces, such as `Data`.
    associatedtype Output

    /// Encodes `value`.
    ///
    /// - Parameter value: the value to encode.
    /// - Returns: the encoded form.
    /// - Throws: an error (usually `EncodingError`) when `value` cannot be encoded.
    func encode<T: Encodable>(_ value: T) throws -> Output
}
