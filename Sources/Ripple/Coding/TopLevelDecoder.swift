/// A type that decodes a whole value at once from one input, such as Foundation's `JSONDecoder` reading
/// `Data`: what ``Publisher/decode(type:decoder:)`` decodes each value with.
///
/// Ripple declares the protocol and nothing that conforms to it, so that the module needs no Foundation;
/// `RippleFoundation` makes `JSONDecoder` and `PropertyListDecoder` conform.
public protocol TopLevelDecoder {
    /// What the decoder reads, such as `Data`.
    associatedtype Input

    /// Decodes a value of `type` from `from`.
    ///
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - from: the encoded form.
    /// - Returns: the decoded value.
    /// - Throws: an error (usually `DecodingError`) when the input does not hold a value of `type`.
    func decode<T: Decodable>(_ type: T.Type, from: Input) throws -> T
}
