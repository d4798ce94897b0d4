import CDBus

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension DBusMessage {
    /// Reads the header and the whole body of a libdbus `DBusMessage*`, which stays the caller's (no
    /// reference is taken or dropped). File descriptors come out as new ``DBusFileDescriptor``s owning the
    /// duplicates libdbus makes for them.
    ///
    /// Throws ``DBusDecodingError/malformed(_:)`` for anything a valid message could not hold: an unknown
    /// message type, an invalid name or path, a missing required header field, a body disagreeing with its
    /// signature, values nested more than 64 containers deep, a descriptor the message does not carry.
    ///
    /// `checkingHeaderNames: false` skips re-checking the header's names and path: for messages a
    /// connection received, which libdbus validated against the specification when it loaded them (the
    /// per-message cost of checking them twice is a fifth of a signal's receive path).
    ///
    /// `names`, when given, supplies header strings seen before (a connection receives the same few
    /// interfaces, members and paths over and over), so that they are not allocated anew per message.
    init(
        reading message: OpaquePointer, checkingHeaderNames: Bool = true, names: HeaderNameCache? = nil
    ) throws(DBusDecodingError) {
        let messageType = dbus_message_get_type(message)
        switch messageType {
        case DBUS_MESSAGE_TYPE_METHOD_CALL: kind = .methodCall
        case DBUS_MESSAGE_TYPE_METHOD_RETURN: kind = .methodReturn
        case DBUS_MESSAGE_TYPE_ERROR: kind = .error
        case DBUS_MESSAGE_TYPE_SIGNAL: kind = .signal
        default: throw .malformed("unknown D-Bus message type \(messageType)")
        }
        serial = dbus_message_get_serial(message)
        let reply = dbus_message_get_reply_serial(message)
        replySerial = reply == 0 ? nil : reply
        let check = checkingHeaderNames
        sender = try Self.name(
            dbus_message_get_sender(message), "sender", DBusNames.busNameProblem, checking: check, names: names)
        destination = try Self.name(
            dbus_message_get_destination(message), "destination", DBusNames.busNameProblem, checking: check,
            names: names)
        interface = try Self.name(
            dbus_message_get_interface(message), "interface", DBusNames.dottedNameProblem, checking: check, names: names
        )
        member = try Self.name(
            dbus_message_get_member(message), "member", DBusNames.memberNameProblem, checking: check, names: names)
        errorName = try Self.name(
            dbus_message_get_error_name(message), "error name", DBusNames.dottedNameProblem, checking: check,
            names: names)
        if let characters = dbus_message_get_path(message) {
            let text =
                names?.string(characters)
                ?? String(decoding: UnsafeRawBufferPointer(start: characters, count: strlen(characters)), as: UTF8.self)
            if check, let problem = DBusObjectPath.problem(in: text) {
                throw .malformed("the message's path \"\(text)\" is invalid: \(problem)")
            }
            path = DBusObjectPath(unchecked: text)
        } else {
            path = nil
        }
        noReplyExpected = dbus_message_get_no_reply(message) != 0
        autoStart = dbus_message_get_auto_start(message) != 0
        body = try DBusBodyReader.readBody(of: message)
        if let missing = missingHeaderField() {
            throw .malformed("the D-Bus \(kind) lacks \(missing)")
        }
    }

    /// A header name field, validated by `problem` when `checking`.
    private static func name(
        _ characters: UnsafePointer<CChar>?, _ field: String, _ problem: (String) -> String?, checking: Bool,
        names: HeaderNameCache?
    ) throws(DBusDecodingError) -> String? {
        guard let characters else { return nil }
        let text =
            names?.string(characters)
            ?? String(decoding: UnsafeRawBufferPointer(start: characters, count: strlen(characters)), as: UTF8.self)
        if checking, let reason = problem(text) {
            throw .malformed("the message's \(field) \"\(text)\" is invalid: \(reason)")
        }
        return text
    }

    /// A new libdbus `DBusMessage*` (one reference, the caller's to drop with `dbus_message_unref`) holding
    /// this message's header fields and body. The serial is set only when not 0 (a connection assigns one
    /// when sending).
    ///
    /// Throws ``DBusError/invalidArgument(_:)`` when a header field or a body value cannot be written (see
    /// ``DBusMessage`` and ``DBusValue``), before libdbus sees any of it; ``DBusError/outOfMemory`` when
    /// libdbus runs out of memory.
    ///
    /// `checkingHeaderNames: false` skips checking the header's bus, interface, member and error names: for
    /// messages whose names were validated when they were made (a ``DBusSignalName``, the standard
    /// interfaces' constants). The body is always checked.
    func makeLibDBusMessage(checkingHeaderNames: Bool = true) throws(DBusError) -> OpaquePointer {
        try validateHeader(checkingNames: checkingHeaderNames)
        _ = try DBusBodyWriter.validate(body)
        let messageType: Int32 =
            switch kind {
            case .methodCall: DBUS_MESSAGE_TYPE_METHOD_CALL
            case .methodReturn: DBUS_MESSAGE_TYPE_METHOD_RETURN
            case .error: DBUS_MESSAGE_TYPE_ERROR
            case .signal: DBUS_MESSAGE_TYPE_SIGNAL
            }
        guard let message = dbus_message_new(messageType) else { throw .outOfMemory }
        do {
            try writeHeader(to: message)
            try DBusBodyWriter.append(body, to: message)
        } catch {
            dbus_message_unref(message)
            throw error
        }
        return message
    }

    private func writeHeader(to message: OpaquePointer) throws(DBusError) {
        if serial != 0 {
            dbus_message_set_serial(message, serial)
        }
        if let replySerial {
            guard dbus_message_set_reply_serial(message, replySerial) != 0 else { throw .outOfMemory }
        }
        try Self.set(sender, on: message, with: dbus_message_set_sender)
        try Self.set(destination, on: message, with: dbus_message_set_destination)
        try Self.set(path?.rawValue, on: message, with: dbus_message_set_path)
        try Self.set(interface, on: message, with: dbus_message_set_interface)
        try Self.set(member, on: message, with: dbus_message_set_member)
        try Self.set(errorName, on: message, with: dbus_message_set_error_name)
        dbus_message_set_no_reply(message, noReplyExpected ? 1 : 0)
        dbus_message_set_auto_start(message, autoStart ? 1 : 0)
    }

    private static func set(
        _ value: String?, on message: OpaquePointer,
        with setter: (OpaquePointer?, UnsafePointer<CChar>?) -> dbus_bool_t
    ) throws(DBusError) {
        guard let value else { return }
        guard value.withCString({ setter(message, $0) }) != 0 else { throw .outOfMemory }
    }

    /// The message in D-Bus's wire format (`dbus_message_marshal`), as a connection would send it. A serial
    /// of 0 is written as 1 (a marshalled message needs one); this value is not changed.
    ///
    /// - Returns: the bytes.
    /// - Throws: what ``DBusMessage`` writing throws, and ``DBusError/invalidArgument(_:)`` for a body with file
    ///   descriptors (they travel beside the bytes, over a socket, never in them).
    public func wireBytes() throws(DBusError) -> [UInt8] {
        var numbered = self
        if numbered.serial == 0 {
            numbered.serial = 1
        }
        let message = try numbered.makeLibDBusMessage()
        defer { dbus_message_unref(message) }
        guard dbus_message_contains_unix_fds(message) == 0 else {
            throw .invalidArgument("a D-Bus message carrying file descriptors cannot be marshalled to bytes")
        }
        var data: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        guard dbus_message_marshal(message, &data, &length) != 0, let data else { throw .outOfMemory }
        defer { dbus_free(data) }
        return Array(UnsafeRawBufferPointer(start: data, count: Int(length)))
    }

    /// The longest message D-Bus allows, in bytes.
    public static let maximumLength = 134_217_728

    /// Reads one whole message in D-Bus's wire format (as ``wireBytes()`` makes), validated by libdbus
    /// (`dbus_message_demarshal`) and then read as `init(reading:)` reads.
    ///
    /// - Parameter bytes: the bytes.
    /// - Throws: ``DBusDecodingError/malformed(_:)`` when the bytes are not exactly one valid message (too short,
    ///   truncated, followed by more bytes, corrupt, or refused by the reader).
    public init(wireBytes bytes: [UInt8]) throws(DBusDecodingError) {
        guard bytes.count <= Self.maximumLength else {
            throw .malformed("\(bytes.count) bytes are more than a D-Bus message may have")
        }
        let message = try bytes.withUnsafeBufferPointer { buffer throws(DBusDecodingError) -> OpaquePointer in
            try Self.demarshal(buffer)
        }
        defer { dbus_message_unref(message) }
        try self.init(reading: message)
    }

    private static func demarshal(_ buffer: UnsafeBufferPointer<UInt8>) throws(DBusDecodingError) -> OpaquePointer {
        guard let start = buffer.baseAddress, !buffer.isEmpty else {
            throw .malformed("no bytes: a D-Bus message has at least 16")
        }
        let characters = UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self)
        let length = Int32(buffer.count)
        let needed = dbus_message_demarshal_bytes_needed(characters, length)
        if needed < 0 {
            throw .malformed("the bytes do not begin a valid D-Bus message header")
        }
        if needed == 0 {
            throw .malformed("\(buffer.count) bytes are too few to hold a D-Bus message header")
        }
        if needed > length {
            throw .malformed("the message is truncated: \(buffer.count) of its \(needed) bytes")
        }
        if needed < length {
            throw .malformed("\(length - needed) bytes follow the \(needed)-byte message")
        }
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        guard let message = dbus_message_demarshal(characters, length, &error) else {
            let reason = error.message.map { String(cString: $0) } ?? "libdbus refused it"
            dbus_error_free(&error)
            throw .malformed(reason)
        }
        return message
    }
}
