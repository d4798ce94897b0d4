/// A D-Bus signature: a list of complete types, such as `"sa{sv}as"` (the three arguments of
/// `PropertiesChanged`) or `""` (no type at all).
///
/// ``init(_:)`` validates by the D-Bus specification's rules, so a signature parsed from a string is always
/// valid; ``init(types:)`` trusts its types, and writing such a signature into a message validates it then.
/// Two signatures are equal when their strings are.
public struct DBusSignature: Sendable, Hashable, CustomStringConvertible {
    /// The longest signature D-Bus allows, in bytes.
    public static let maximumLength = 255
    /// How deep arrays (dictionaries included) may nest in one signature.
    public static let maximumArrayNesting = 32
    /// How deep structures may nest in one signature.
    public static let maximumStructureNesting = 32

    /// The signature as D-Bus writes it.
    public let rawValue: String
    /// The complete types the signature lists, in order.
    public let types: [DBusType]

    /// The empty signature, `""`: no types (the signature of an empty message body).
    public static let empty = DBusSignature(types: [])

    /// Parses and validates a signature.
    ///
    /// - Parameter string: the signature.
    /// - Throws: ``DBusError/invalidArgument(_:)`` naming the signature and the rule it breaks: longer than 255 bytes,
    ///   a character that is no type code, an array without an element type, arrays or structures nested more than 32
    ///   deep, an empty or unclosed structure, a dict entry outside an array, with a non-basic key or with other than
    ///   two types.
    public init(_ string: String) throws(DBusError) {
        var text = string
        let result = text.withUTF8 { DBusSignatureParser.parse($0) }
        switch result {
        case .success(let types):
            self.rawValue = string
            self.types = types
        case .failure(let problem):
            throw .invalidArgument("invalid D-Bus signature \"\(string)\": \(problem.reason)")
        }
    }

    /// The signature listing `types`, without validation: an invalid type (an empty structure, a
    /// dictionary with a container key, nesting too deep, …) is only refused when the signature is written
    /// into a message, as ``DBusError/invalidArgument(_:)``. Use ``init(validating:)`` to check at once.
    ///
    /// - Parameter types: the types, in order.
    public init(types: [DBusType]) {
        var raw = ""
        for type in types {
            type.appendSignature(to: &raw)
        }
        self.rawValue = raw
        self.types = types
    }

    /// The signature listing `types`, validated as ``init(_:)`` validates a string; throws
    /// ``DBusError/invalidArgument(_:)`` when a type breaks a D-Bus rule.
    ///
    /// - Parameter types: the types, in order.
    /// - Throws: ``DBusError/invalidArgument(_:)`` when a type breaks a D-Bus rule.
    public init(validating types: [DBusType]) throws(DBusError) {
        let signature = DBusSignature(types: types)
        try signature.validate()
        self = signature
    }

    /// Whether the signature lists no type.
    public var isEmpty: Bool { types.isEmpty }

    /// Whether the signature lists exactly one complete type (what a variant may carry).
    public var isSingleCompleteType: Bool { types.count == 1 }

    /// The signature, as D-Bus writes it.
    public var description: String { rawValue }

    public static func == (lhs: DBusSignature, rhs: DBusSignature) -> Bool {
        lhs.rawValue == rhs.rawValue
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(rawValue)
    }

    /// Throws ``DBusError/invalidArgument(_:)`` when the signature breaks a D-Bus rule (possible only for
    /// one made with ``init(types:)``).
    func validate() throws(DBusError) {
        _ = try DBusSignature(rawValue)
    }
}

/// Why a signature is invalid, in words.
struct DBusSignatureProblem: Error {
    let reason: String
}

/// The validating signature parser: the D-Bus specification's rules, at least as strict as libdbus's own
/// validator (so libdbus never refuses what it accepts; libdbus aborts the process on an invalid signature).
///
/// Nesting counts true depth: at most 32 arrays (a dictionary is an array) enclose any type, and at most
/// 32 structures. Dict entries nest only inside arrays, so they are bounded by the array limit.
struct DBusSignatureParser: ~Copyable {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Parses the whole buffer as a list of complete types.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<[DBusType], DBusSignatureProblem> {
        if bytes.count == 1, let type = basicType(for: bytes[0]) {
            return .success([type])  // the common case in variants, without a parser
        }
        guard bytes.count <= DBusSignature.maximumLength else {
            return .failure(
                DBusSignatureProblem(
                    reason: "it is \(bytes.count) bytes long, more than \(DBusSignature.maximumLength)"))
        }
        var parser = DBusSignatureParser(bytes: bytes)
        do {
            var types: [DBusType] = []
            while parser.position < bytes.count {
                types.append(try parser.parseCompleteType(arrayDepth: 0, structureDepth: 0))
            }
            return .success(types)
        } catch {
            return .failure(error)
        }
    }

    /// Parses a signature string holding exactly one complete type (a variant's), or reports why not.
    static func parseSingleCompleteType(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<DBusType, DBusSignatureProblem> {
        switch parse(bytes) {
        case .success(let types):
            guard types.count == 1 else {
                return .failure(DBusSignatureProblem(reason: "it holds \(types.count) complete types, not one"))
            }
            return .success(types[0])
        case .failure(let problem):
            return .failure(problem)
        }
    }

    /// The basic type (or variant) a one-character type code stands for, nil for containers and others.
    static func basicType(for code: UInt8) -> DBusType? {
        switch code {
        case DBusTypeCode.byte: .byte
        case DBusTypeCode.boolean: .boolean
        case DBusTypeCode.int16: .int16
        case DBusTypeCode.uint16: .uint16
        case DBusTypeCode.int32: .int32
        case DBusTypeCode.uint32: .uint32
        case DBusTypeCode.int64: .int64
        case DBusTypeCode.uint64: .uint64
        case DBusTypeCode.double: .double
        case DBusTypeCode.string: .string
        case DBusTypeCode.objectPath: .objectPath
        case DBusTypeCode.signature: .signature
        case DBusTypeCode.unixFD: .unixFD
        case DBusTypeCode.variant: .variant
        default: nil
        }
    }

    private var atEnd: Bool { position >= bytes.count }

    private mutating func parseCompleteType(arrayDepth: Int, structureDepth: Int) throws(DBusSignatureProblem)
        -> DBusType
    {
        let code = bytes[position]
        position += 1
        if let basic = Self.basicType(for: code) {
            return basic
        }
        switch code {
        case DBusTypeCode.array:
            guard arrayDepth < DBusSignature.maximumArrayNesting else {
                throw DBusSignatureProblem(
                    reason: "arrays are nested more than \(DBusSignature.maximumArrayNesting) deep")
            }
            guard !atEnd, bytes[position] != DBusTypeCode.structEnd, bytes[position] != DBusTypeCode.dictEntryEnd
            else {
                throw DBusSignatureProblem(reason: "an array has no element type")
            }
            if bytes[position] == DBusTypeCode.dictEntryBegin {
                position += 1
                return try parseDictionaryEntry(arrayDepth: arrayDepth + 1, structureDepth: structureDepth)
            }
            return .array(try parseCompleteType(arrayDepth: arrayDepth + 1, structureDepth: structureDepth))
        case DBusTypeCode.structBegin:
            guard structureDepth < DBusSignature.maximumStructureNesting else {
                throw DBusSignatureProblem(
                    reason: "structures are nested more than \(DBusSignature.maximumStructureNesting) deep")
            }
            var fields: [DBusType] = []
            while true {
                guard !atEnd else { throw DBusSignatureProblem(reason: "a structure is not closed") }
                if bytes[position] == DBusTypeCode.structEnd {
                    position += 1
                    break
                }
                fields.append(try parseCompleteType(arrayDepth: arrayDepth, structureDepth: structureDepth + 1))
            }
            guard !fields.isEmpty else { throw DBusSignatureProblem(reason: "a structure has no fields") }
            return .structure(fields)
        case DBusTypeCode.structEnd:
            throw DBusSignatureProblem(reason: "')' closes no structure")
        case DBusTypeCode.dictEntryBegin:
            throw DBusSignatureProblem(reason: "a dict entry is not an array's element type")
        case DBusTypeCode.dictEntryEnd:
            throw DBusSignatureProblem(reason: "'}' closes no dict entry")
        default:
            throw DBusSignatureProblem(reason: "\(Self.describe(byte: code)) is not a type code")
        }
    }

    /// Parses `kv}` after `a{`.
    private mutating func parseDictionaryEntry(arrayDepth: Int, structureDepth: Int) throws(DBusSignatureProblem)
        -> DBusType
    {
        guard !atEnd else { throw DBusSignatureProblem(reason: "a dict entry is not closed") }
        guard bytes[position] != DBusTypeCode.dictEntryEnd else {
            throw DBusSignatureProblem(reason: "a dict entry has no key type")
        }
        let keyCode = bytes[position]
        let key = try parseCompleteType(arrayDepth: arrayDepth, structureDepth: structureDepth)
        guard key.isBasic else {
            throw DBusSignatureProblem(
                reason: "a dict entry's key must be a basic type, not \(Self.describe(byte: keyCode))")
        }
        guard !atEnd else { throw DBusSignatureProblem(reason: "a dict entry is not closed") }
        guard bytes[position] != DBusTypeCode.dictEntryEnd else {
            throw DBusSignatureProblem(reason: "a dict entry has a key type but no value type")
        }
        let value = try parseCompleteType(arrayDepth: arrayDepth, structureDepth: structureDepth)
        guard !atEnd else { throw DBusSignatureProblem(reason: "a dict entry is not closed") }
        guard bytes[position] == DBusTypeCode.dictEntryEnd else {
            throw DBusSignatureProblem(reason: "a dict entry has more than a key type and a value type")
        }
        position += 1
        return .dictionary(key: key, value: value)
    }

    /// `'c'` for a printable ASCII character, `byte 0x07` for any other byte.
    static func describe(byte: UInt8) -> String {
        if byte >= 0x21, byte <= 0x7E {
            return "'\(Character(Unicode.Scalar(byte)))'"
        }
        return "byte 0x" + hex(byte)
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
