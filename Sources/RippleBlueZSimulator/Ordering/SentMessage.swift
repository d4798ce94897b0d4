import RippleDBus

/// A message the simulated bluetoothd sent in the shuffled order, as its trace keeps it.
struct SentMessage: Sendable, Hashable, CustomStringConvertible {
    /// The message (a signal, a reply or an error).
    let message: DBusMessage
    /// For a reply or an error: the member of the call it answers, when known.
    let answering: String?

    /// The message sent, and for a reply the member of the call it answers.
    ///
    /// - Parameters:
    ///   - message: The message as sent.
    ///   - answering: The member of the call a reply answers.
    init(_ message: DBusMessage, answering: String?) {
        var kept = message
        // A descriptor kept in the trace would keep its socket open (an acquired notification socket
        // would never be seen closed): the trace keeps `h` values as the text "fd".
        if kept.body.contains(where: Self.carriesDescriptor) {
            kept.body = kept.body.map(Self.withoutDescriptors)
        }
        self.message = kept
        self.answering = answering
    }

    private static func carriesDescriptor(_ value: DBusValue) -> Bool {
        switch value {
        case .unixFD: true
        case .array(_, let elements), .structure(let elements): elements.contains(where: carriesDescriptor)
        case .dictionary(_, _, let entries):
            entries.contains { carriesDescriptor($0.key) || carriesDescriptor($0.value) }
        case .variant(let inner): carriesDescriptor(inner)
        default: false
        }
    }

    private static func withoutDescriptors(_ value: DBusValue) -> DBusValue {
        switch value {
        case .unixFD: .string("fd")
        case .array(_, let elements): .structure(elements.map(withoutDescriptors))
        case .structure(let elements): .structure(elements.map(withoutDescriptors))
        case .dictionary(let key, let valueType, let entries):
            .dictionary(
                key: key, value: valueType,
                entries.map {
                    DBusDictionaryEntry(key: withoutDescriptors($0.key), value: withoutDescriptors($0.value))
                })
        case .variant(let inner): .variant(withoutDescriptors(inner))
        default: value
        }
    }

    /// One line: `+path [interfaces]` (InterfacesAdded), `-path [interfaces]` (InterfacesRemoved),
    /// `path Interface {name=value, …} -[invalidated]` (PropertiesChanged, names sorted), `reply Member`,
    /// `error Member Name`, or `path interface.member` for another signal. Paths below `/org/bluez/` and
    /// `org.bluez.` prefixes are shortened.
    var description: String {
        let body = message.body
        switch (message.kind, message.member) {
        case (.signal, "InterfacesAdded"):
            let names = (body.dropFirst().first?.dictionaryEntries ?? []).compactMap(\.key.string)
            return "+\(Self.short(body.first?.objectPath)) [\(names.map(Self.short).joined(separator: ","))]"
        case (.signal, "InterfacesRemoved"):
            let names = (body.dropFirst().first?.arrayElements ?? []).compactMap(\.string)
            return "-\(Self.short(body.first?.objectPath)) [\(names.map(Self.short).joined(separator: ","))]"
        case (.signal, "PropertiesChanged") where body.count == 3:
            let changed = body[1].stringVariantDictionary ?? [:]
            let values = changed.keys.sorted().map { "\($0)=\(changed[$0].map { "\($0.unwrappingVariants)" } ?? "")" }
            let invalidated = (body[2].arrayElements ?? []).compactMap(\.string)
            let interface = Self.short(body[0].string ?? "")
            let removed = invalidated.isEmpty ? "" : " -[\(invalidated.joined(separator: ","))]"
            return "\(Self.short(message.path)) \(interface) {\(values.joined(separator: ", "))}\(removed)"
        case (.methodReturn, _):
            return "reply \(answering ?? "?")"
        case (.error, _):
            return "error \(answering ?? "?") \(message.errorName ?? "")"
        default:
            return "\(Self.short(message.path)) \(message.interface ?? "").\(message.member ?? "")"
        }
    }

    private static func short(_ path: DBusObjectPath?) -> String {
        guard let path else { return "?" }
        let text = path.description
        return text.hasPrefix("/org/bluez/") ? String(text.dropFirst("/org/bluez/".count)) : text
    }

    private static func short(_ name: String) -> String {
        name.hasPrefix("org.bluez.") ? String(name.dropFirst("org.bluez.".count)) : name
    }
}
