import Ripple

/// Flags of ``DBusConnection/requestName(_:flags:)`` (`org.freedesktop.DBus.RequestName`).
public struct DBusRequestNameFlags: OptionSet, Sendable, Hashable {
    /// The flags' bits, as the bus takes them.
    public let rawValue: UInt32

    /// Flags of these bits.
    ///
    /// - Parameter rawValue: the bits.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Another connection asking with ``replaceExisting`` may take the name from this one.
    public static let allowReplacement = DBusRequestNameFlags(rawValue: 1)
    /// Take the name from its owner if the owner allowed replacement.
    public static let replaceExisting = DBusRequestNameFlags(rawValue: 2)
    /// Do not wait in the queue when the name is taken: answer ``DBusRequestNameReply/exists``.
    public static let doNotQueue = DBusRequestNameFlags(rawValue: 4)
}

/// The bus's answer to ``DBusConnection/requestName(_:flags:)``.
public enum DBusRequestNameReply: UInt32, Sendable, Hashable {
    /// This connection owns the name now.
    case primaryOwner = 1
    /// The name is taken; this connection waits in its queue.
    case inQueue = 2
    /// The name is taken and this connection did not queue.
    case exists = 3
    /// This connection already owned the name.
    case alreadyOwner = 4
}

/// The bus's answer to ``DBusConnection/releaseName(_:)``.
public enum DBusReleaseNameReply: UInt32, Sendable, Hashable {
    /// The name was released (or this connection left its queue).
    case released = 1
    /// Nobody owned the name.
    case nonExistent = 2
    /// Another connection owns the name, and this one was not in its queue.
    case notOwner = 3
}

extension DBusConnection {
    /// Asks the bus for the well-known name `name` (`RequestName`): emits the bus's answer, then finishes.
    ///
    /// Fails with ``DBusError/invalidArgument(_:)`` for a name that is not a valid well-known bus name,
    /// with the bus's error as ``DBusError/remote(name:message:)`` when it refuses (the bus's security
    /// policy), with ``DBusError/decoding(_:)`` for an answer it does not know, and as any call fails
    /// (``call(_:timeout:)``).
    ///
    /// - Parameters:
    ///   - name: the well-known name.
    ///   - flags: how to request it.
    /// - Returns: the publisher of the bus's answer.
    public func requestName(
        _ name: String, flags: DBusRequestNameFlags = []
    ) -> AnyPublisher<DBusRequestNameReply, DBusError> {
        busNameCall("RequestName", name: name, extra: [.uint32(flags.rawValue)], as: DBusRequestNameReply.self)
    }

    /// Gives up the well-known name `name` (`ReleaseName`): emits the bus's answer, then finishes. Fails
    /// as ``requestName(_:flags:)`` does.
    ///
    /// - Parameter name: the well-known name.
    /// - Returns: the publisher of the bus's answer.
    public func releaseName(_ name: String) -> AnyPublisher<DBusReleaseNameReply, DBusError> {
        busNameCall("ReleaseName", name: name, extra: [], as: DBusReleaseNameReply.self)
    }

    private func busNameCall<Reply: RawRepresentable<UInt32> & Sendable>(
        _ member: String, name: String, extra: [DBusValue], as _: Reply.Type
    ) -> AnyPublisher<Reply, DBusError> {
        guard DBusNames.isValidBusName(name), !name.hasPrefix(":") else {
            return Fail(error: DBusError.invalidArgument("\"\(name)\" is not a valid well-known bus name"))
                .eraseToAnyPublisher()
        }
        return call(
            destination: DBusMatchRule.busName, path: DBusConnection.busPath, interface: DBusMatchRule.busName,
            member: member, arguments: [.string(name)] + extra
        )
        .flatMap(maxPublishers: .max(1)) { reply -> Result<Reply, DBusError>.Publisher in
            guard case .uint32(let code)? = reply.body.first, let answer = Reply(rawValue: code) else {
                return Result.Publisher(
                    .failure(
                        .decoding(
                            .invalidValue(
                                "the bus answered \(member) with \(reply.body.map(\.description).joined(separator: ", "))"
                            ))))
            }
            return Result.Publisher(.success(answer))
        }
        .eraseToAnyPublisher()
    }
}
