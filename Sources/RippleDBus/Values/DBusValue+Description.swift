extension DBusValue {
    /// A readable rendering after GVariant's text format: `int32` values and doubles bare (`-5`, `1.5`),
    /// other integers with their type (`uint32 5`, `byte 0x2a`), `true`, strings quoted and escaped
    /// (`"hi"`), `objectpath '/org/bluez'`, `signature 'a{sv}'`, `fd 7`, `bytes [01 ff]`, arrays
    /// `[1, 2]`, dictionaries `{"RSSI": <int16 -60>}`, structures `(1, "a")`, variants `<…>`;
    /// empty containers name their type: `@as []`, `@a{sv} {}`.
    public var description: String {
        var text = ""
        write(to: &text)
        return text
    }

    private func write(to text: inout String) {
        switch self {
        case let .byte(value):
            text += "byte 0x" + DBusSignatureParser.hex(value)
        case let .boolean(value):
            text += value ? "true" : "false"
        case let .int16(value):
            text += "int16 \(value)"
        case let .uint16(value):
            text += "uint16 \(value)"
        case let .int32(value):
            text += "\(value)"
        case let .uint32(value):
            text += "uint32 \(value)"
        case let .int64(value):
            text += "int64 \(value)"
        case let .uint64(value):
            text += "uint64 \(value)"
        case let .double(value):
            text += "\(value)"
        case let .string(value):
            text += value.debugDescription
        case let .objectPath(value):
            text += "objectpath '\(value.rawValue)'"
        case let .signature(value):
            text += "signature '\(value.rawValue)'"
        case let .unixFD(value):
            text += value.description
        case let .bytes(bytes):
            text += "bytes ["
            text += bytes.map(DBusSignatureParser.hex).joined(separator: " ")
            text += "]"
        case let .array(element, elements):
            if elements.isEmpty {
                text += "@a\(element.signature) []"
                return
            }
            text += "["
            for (index, value) in elements.enumerated() {
                if index > 0 { text += ", " }
                value.write(to: &text)
            }
            text += "]"
        case let .dictionary(key, value, entries):
            if entries.isEmpty {
                text += "@\(DBusType.dictionary(key: key, value: value).signature) {}"
                return
            }
            text += "{"
            for (index, entry) in entries.enumerated() {
                if index > 0 { text += ", " }
                entry.key.write(to: &text)
                text += ": "
                entry.value.write(to: &text)
            }
            text += "}"
        case let .structure(fields):
            text += "("
            for (index, value) in fields.enumerated() {
                if index > 0 { text += ", " }
                value.write(to: &text)
            }
            text += ")"
        case let .variant(value):
            text += "<"
            value.write(to: &text)
            text += ">"
        }
    }
}
