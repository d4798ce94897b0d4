import RippleDBus
import Synchronization

/// A central's write of a served characteristic, as ``PeripheralManager/writes(to:capacity:statistics:)``
/// delivers it: the bytes, where they go, who wrote them, and whether the central waits for an answer.
///
/// Answer each request that ``wantsResponse`` once, with ``respond(_:)``: success, or an ``ATTError``
/// the central receives. A request released without an answer is answered ``ATTError/unlikely``.
/// Answering a request that wants no response does nothing.
public struct WriteRequest: Sendable {
    /// The bytes written.
    public let value: [UInt8]
    /// Where in the characteristic's value they go.
    public let offset: Int
    /// The ATT MTU of the central's link (23 when bluetoothd did not say).
    public let mtu: Int
    /// bluetoothd's object for the central, when it said.
    public let device: DBusObjectPath?
    /// Whether the central waits for the answer (a Write Request); false for a Write Command.
    public let wantsResponse: Bool
    let responder: WriteResponder

    /// The central's address, read from ``device``.
    public var centralAddress: BluetoothAddress? { device.flatMap(PairingAgent.address(of:)) }

    /// Answers the request: success, or the ATT error the central gets.
    ///
    /// - Parameter result: the answer.
    /// - Returns: whether this was the request's first answer (later ones are ignored).
    @discardableResult
    public func respond(_ result: Result<Void, ATTError> = .success(())) -> Bool {
        responder.complete(result)
    }

    /// The value decoded as `type` through its ``Readable`` conformance.
    ///
    /// - Parameter type: the type to decode.
    /// - Returns: the decoded value.
    /// - Throws: ``BluetoothError`` of kind ``BluetoothError/Kind/invalidValue(_:)`` when the bytes do not
    ///   decode (answer the request with ``ATTError/invalidAttributeValueLength`` or an application error).
    public func decode<Value: Readable>(as type: Value.Type = Value.self) throws(BluetoothError) -> Value {
        do {
            return try Value(bluetoothBytes: value)
        } catch {
            throw .invalidValue(error)
        }
    }
}

/// Answers one write's D-Bus call once; unanswered when released, it answers "unlikely error".
final class WriteResponder: Sendable {
    private let invocation: DBusMethodInvocation?
    private let answered = Atomic<Bool>(false)

    init(invocation: DBusMethodInvocation?) {
        self.invocation = invocation
    }

    deinit {
        if !answered.load(ordering: .acquiring) { complete(.failure(.unlikely)) }
    }

    @discardableResult
    func complete(_ result: Result<Void, ATTError>) -> Bool {
        guard !answered.exchange(true, ordering: .acquiringAndReleasing) else { return false }
        switch result {
        case .success:
            invocation?.reply()
        case .failure(let error):
            let reply = error.bluezReply
            invocation?.fail(.remote(name: reply.name, message: reply.message))
        }
        return true
    }
}
