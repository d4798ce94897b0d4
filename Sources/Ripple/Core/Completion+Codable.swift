// A completion encodes as Combine encodes it: a keyed container with `success` (`true` for `.finished`,
// `false` for `.failure`) and, for a failure, the error under `error`. `{"success":true}` and
// `{"success":false,"error":…}` in JSON.

extension Subscribers.Completion {
    /// The keys of an encoded completion.
    private enum CodingKeys: String, CodingKey {
        case success
        case error
    }
}

extension Subscribers.Completion: Encodable where Failure: Encodable {
    /// Encodes the completion as `success` (and `error` for a failure).
    ///
    /// - Parameter encoder: the encoder to write to.
    /// - Throws: what the encoder or the error's own encoding throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .finished:
            try container.encode(true, forKey: .success)
        case .failure(let error):
            try container.encode(false, forKey: .success)
            try container.encode(error, forKey: .error)
        }
    }
}

extension Subscribers.Completion: Decodable where Failure: Decodable {
    /// Decodes a completion from `success` (and `error` when `success` is `false`).
    ///
    /// - Parameter decoder: the decoder to read from.
    /// - Throws: `DecodingError` when a key is missing or has the wrong type, or what the error's own
    ///   decoding throws.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if try container.decode(Bool.self, forKey: .success) {
            self = .finished
        } else {
            self = .failure(try container.decode(Failure.self, forKey: .error))
        }
    }
}
