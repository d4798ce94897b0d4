import Ripple
import RippleLoop
import Testing

@testable import RippleDBus

/// A private bus with a server connection (exporting objects) and a client connection calling it.
final class ServerPair: Sendable {
    let bus: BusFixture
    let server: DBusConnection
    let client: DBusConnection

    init() throws {
        bus = try BusFixture()
        server = try bus.connect()
        client = try bus.connect()
    }

    /// Calls `interface.member` on the server's object at `path` and returns the reply's body.
    func call(
        _ path: String, _ interface: String?, _ member: String, _ arguments: [DBusValue] = []
    ) async throws -> [DBusValue] {
        try await client.call(
            destination: server.uniqueName, path: DBusObjectPath(path), interface: interface, member: member,
            arguments: arguments
        ).firstValue.body
    }

    /// The D-Bus error name a call fails with, or nil when it succeeds.
    func errorName(
        _ path: String, _ interface: String?, _ member: String, _ arguments: [DBusValue] = []
    ) async throws -> String? {
        do {
            _ = try await call(path, interface, member, arguments)
            return nil
        } catch let error as DBusError {
            return error.remoteName ?? "\(error)"
        }
    }

    /// The error a call fails with (the name and message of a remote error), or nil when it succeeds.
    func error(
        _ path: String, _ interface: String?, _ member: String, _ arguments: [DBusValue] = []
    ) async throws -> DBusError? {
        do {
            _ = try await call(path, interface, member, arguments)
            return nil
        } catch let error as DBusError {
            return error
        }
    }

    /// Records the signals `interface.member` the client receives from the server.
    func signals(_ interface: String, _ member: String) async throws -> Recorder<DBusMessage> {
        let recorder = Recorder(client.signals(from: server.uniqueName, interface: interface, member: member))
        try await client.settle()
        return recorder
    }
}

/// Checks that `xml` is well formed as far as tags go: every element closed in order, attributes quoted,
/// no stray `<` or `&`. Returns the element names in document order, or nil when it is not well formed.
func wellFormedElementNames(_ xml: String) -> [String]? {
    var names: [String] = []
    var stack: [String] = []
    var index = xml.startIndex
    func isNameCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_" || character == "-" || character == ":"
    }
    while index < xml.endIndex {
        let character = xml[index]
        if character == "&" {
            let rest = xml[index...]
            guard ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].contains(where: { rest.hasPrefix($0) }) else {
                return nil
            }
            index = xml.index(after: index)
            continue
        }
        guard character == "<" else {
            if character == ">" { return nil }
            index = xml.index(after: index)
            continue
        }
        guard let close = xml[index...].firstIndex(of: ">") else { return nil }
        var tag = String(xml[xml.index(after: index)..<close])
        index = xml.index(after: close)
        if tag.hasPrefix("!DOCTYPE") || tag.hasPrefix("?") { continue }
        if tag.hasPrefix("/") {
            guard stack.popLast() == String(tag.dropFirst()) else { return nil }
            continue
        }
        let selfClosing = tag.hasSuffix("/")
        if selfClosing { tag.removeLast() }
        let name = String(tag.prefix(while: isNameCharacter))
        guard !name.isEmpty else { return nil }
        // Attributes: name="value" pairs separated by spaces, values without < or ".
        var attributes = tag.dropFirst(name.count)
        while true {
            attributes = attributes.drop(while: { $0 == " " || $0 == "\n" })
            if attributes.isEmpty { break }
            let attributeName = attributes.prefix(while: isNameCharacter)
            guard !attributeName.isEmpty else { return nil }
            attributes = attributes.dropFirst(attributeName.count)
            guard attributes.hasPrefix("=\"") else { return nil }
            attributes = attributes.dropFirst(2)
            guard let end = attributes.firstIndex(of: "\"") else { return nil }
            if attributes[..<end].contains("<") { return nil }
            attributes = attributes[attributes.index(after: end)...]
        }
        names.append(name)
        if !selfClosing { stack.append(name) }
    }
    return stack.isEmpty ? names : nil
}
