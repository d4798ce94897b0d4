import Synchronization

/// A call of an asynchronous ``DBusMethod`` waiting for its answer: complete it exactly once, from any
/// thread, with ``reply(_:)`` or ``fail(_:)``.
///
/// A second completion is ignored (and returns false). An invocation released without being completed
/// answers the caller with `org.freedesktop.DBus.Error.NoReply` ("the method handler dropped the call
/// without replying"), so a caller never waits for its timeout because of a forgotten invocation. When
/// the caller asked for no reply, completing sends nothing. Completions go out in the order they are made,
/// after every signal and property change made before them.
public final class DBusMethodInvocation: Sendable {
    /// The call being answered.
    public let call: DBusMethodCall
    /// The signature the results must have.
    let outputSignature: DBusSignature
    /// The connection to answer on; nil once it is gone (completions are then dropped).
    private weak let core: ConnectionCore?
    private let completed = Atomic<Bool>(false)

    init(call: DBusMethodCall, outputSignature: DBusSignature, core: ConnectionCore) {
        self.call = call
        self.outputSignature = outputSignature
        self.core = core
    }

    deinit {
        if !completed.load(ordering: .acquiring) {
            _ = complete(
                .failure(
                    .remote(
                        name: DBusStandardError.noReply, message: "the method handler dropped the call without replying"
                    )))
        }
    }

    /// Replies `values`, which must have the method's output signature (else the caller gets
    /// `org.freedesktop.DBus.Error.Failed` naming both signatures). Returns false, sending nothing, when the
    /// invocation was already completed.
    ///
    /// - Parameter values: the results.
    /// - Returns: false when the invocation was already completed.
    @discardableResult
    public func reply(_ values: [DBusValue] = []) -> Bool {
        complete(.success(values))
    }

    /// Replies an error: a ``DBusError/remote(name:message:)`` as that D-Bus error, any other case as
    /// `org.freedesktop.DBus.Error.Failed` with its description. Returns false, sending nothing, when the
    /// invocation was already completed.
    ///
    /// - Parameter error: the error.
    /// - Returns: false when the invocation was already completed.
    @discardableResult
    public func fail(_ error: DBusError) -> Bool {
        complete(.failure(error))
    }

    /// Whether the invocation has been completed.
    public var isCompleted: Bool {
        completed.load(ordering: .acquiring)
    }

    private func complete(_ result: Result<[DBusValue], DBusError>) -> Bool {
        guard !completed.exchange(true, ordering: .acquiringAndReleasing) else { return false }
        guard let core else { return true }
        core.objectRegistry.sendReply(to: call.message, result: result, outputSignature: outputSignature, core: core)
        return true
    }
}
