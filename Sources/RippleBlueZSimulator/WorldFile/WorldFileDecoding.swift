/// Any key of a keyed container, to list the keys a file actually has.
struct WorldFileKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init?(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}

/// The strictness of world files: a key the schema does not know is refused, naming it and the keys that
/// are allowed there.
enum WorldFileKeys {
    static func rejectUnknown<Keys: CodingKey & CaseIterable>(_ keys: Keys.Type, in decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: WorldFileKey.self)
        let allowed = Keys.allCases.map(\.stringValue)
        let unknown = container.allKeys.filter { !allowed.contains($0.stringValue) }
            .sorted { $0.stringValue < $1.stringValue }
        guard let first = unknown.first else { return }
        throw DecodingError.dataCorruptedError(
            forKey: first, in: container,
            debugDescription: "unknown key \"\(first.stringValue)\" (the keys here are: "
                + allowed.joined(separator: ", ") + ")")
    }
}

extension WorldDescription {
    /// Runs `decode` (a `JSONDecoder`'s or a YAML decoder's `decode(WorldDescription.self, from:)`) and
    /// turns what it throws into ``SimulatorError/invalidWorld(_:)`` with a message saying where in the file
    /// the problem is (``problem(decoding:)``).
    ///
    /// - Parameter decode: the decoding, run once.
    /// - Returns: the description it decoded.
    /// - Throws: ``SimulatorError/invalidWorld(_:)`` saying where the problem is and what it is.
    public static func decode(_ decode: () throws -> WorldDescription) throws(SimulatorError) -> WorldDescription {
        do {
            return try decode()
        } catch {
            throw .invalidWorld(problem(decoding: error))
        }
    }

    /// A sentence for an error thrown while decoding a world file: for a `DecodingError`, where it happened
    /// (`peripherals[0].rssi`) and what was wrong; for another error, its description.
    ///
    /// - Parameter error: what the decoder threw.
    /// - Returns: the sentence.
    public static func problem(decoding error: any Error) -> String {
        guard let error = error as? DecodingError else { return String(describing: error) }
        switch error {
        case .typeMismatch(let type, let context):
            return "\(location(context.codingPath)): expected \(typeName(type)) (\(context.debugDescription))"
        case .valueNotFound(let type, let context):
            return "\(location(context.codingPath)): expected \(typeName(type)), found nothing"
        case .keyNotFound(let key, let context):
            return "\(location(context.codingPath)): missing key \"\(key.stringValue)\""
        case .dataCorrupted(let context):
            var text = "\(location(context.codingPath)): \(context.debugDescription)"
            if let underlying = context.underlyingError { text += " (\(underlying))" }
            return text
        @unknown default:
            return String(describing: error)
        }
    }

    /// A coding path as the file's reader sees it: `peripherals[1].services[0].uuid`, or "the file" for
    /// the top level.
    ///
    /// - Parameter codingPath: the decoder's coding path.
    /// - Returns: the location.
    public static func location(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text.isEmpty ? "the file" : text
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type: "an integer"
        case is Double.Type: "a number"
        case is [String].Type: "a list of strings"
        case is [String: String].Type: "a mapping of strings to strings"
        default: "\(type)"
        }
    }
}
