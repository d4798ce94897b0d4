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
        case .byte(let value):
            text += "byte 0x" + DBusSignatureParser.hex(value)
        case .boolean(let value):
            text += value ? "true" : "false"
        case .int16(let value):
            text += "int16 \(value)"
        case .uint16(let value):
            text += "uint16 \(value)"
        case .int32(let value):
            text += "\(value)"
        case .uint32(let value):
            text += "uint32 \(value)"
        case .int64(let value):
            text += "int64 \(value)"
        case .uint64(let value):
            text += "uint64 \(value)"
        case .double(let value):
            text += "\(value)"
        case .string(let value):
            text += value.debugDescription
        case .objectPath(let value):
            text += "objectpath '\(value.rawValue)'"
        case .signature(let value):
            text += "signature '\(value.rawValue)'"
        case .unixFD(let value):
            text += value.description
        case .bytes(let bytes):
            text += "bytes ["
            text += bytes.map(DBusSignatureParser.hex).joined(separator: " ")
            text += "]"
        case .array(let element, let elements):
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
        case .dictionary(let key, let value, let entries):
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
        case .structure(let fields):
            text += "("
            for (index, value) in fields.enumerated() {
                if index > 0 { text += ", " }
                value.write(to: &text)
            }
            text += ")"
        case .variant(let value):
            text += "<"
            value.write(to: &text)
            text += ">"
        }
    }
}
