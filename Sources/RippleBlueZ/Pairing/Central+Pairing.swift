import Ripple
import RippleDBus
import Synchronization

extension Central {
    /// Registers a pairing agent that answers bluetoothd's pairing questions with `handler`, as the
    /// default agent when `asDefault` (for pairings other programs start too).
    ///
    /// - Parameters:
    ///   - capability: what the agent can show and enter, which decides how pairings go.
    ///   - asDefault: whether the agent answers pairings other programs start too.
    ///   - handler: answers bluetoothd's questions.
    /// - Returns: the registered agent; cancel it to unregister.
    /// - Throws: bluetoothd's error (``BluetoothError/Kind/failed`` with `AlreadyExists` when this connection has an
    ///   agent).
    public func registerPairingAgent(
        capability: PairingCapability = .keyboardDisplay, asDefault: Bool = true, handler: @escaping PairingHandler
    ) async throws(BluetoothError) -> PairingAgent {
        try await PairingAgent.register(
            on: core.connection, path: "/org/ripple/agent\(core.nextID())", capability: capability,
            asDefault: asDefault, handler: handler)
    }
}

extension Peripheral {
    /// Whether bluetoothd has it paired.
    public var isPaired: Bool { central.core.deviceProperties(path)?["Paired"]?.boolean ?? false }

    /// Pairs with the peripheral (`Device1.Pair()`; bluetoothd asks the registered pairing agent what it
    /// needs): emits once paired, then finishes; succeeds at once when it is paired already. A *single-value*
    /// publisher.
    ///
    /// Cancelling the subscription, or `timeout` passing, cancels the pairing in bluetoothd too
    /// (`Device1.CancelPairing()`, and bluetoothd withdraws its question to the agent): the peripheral stays
    /// unpaired. The cancellation is best effort: its own failure is ignored (`DoesNotExist` when the pairing
    /// ended meanwhile, whichever way it ended).
    ///
    /// - Parameter timeout: the longest the pairing may take.
    /// - Returns: a publisher of one value once paired. It fails with
    ///   ``BluetoothError/Kind/insufficientAuthentication`` when the pairing is rejected or fails
    ///   (`AuthenticationRejected`, `AuthenticationFailed`, `AuthenticationCanceled`, …, named in the error), with
    ///   ``BluetoothError/Kind/timeout`` after `timeout`, and with bluetoothd's other errors.
    public func pair(timeout: Duration = .seconds(60)) -> AnyPublisher<Void, BluetoothError> {
        let core = central.core
        let peripheral = self
        return Deferred { () -> AnyPublisher<Void, BluetoothError> in
            if let error = core.operationError() { return Fail(error: error).eraseToAnyPublisher() }
            if peripheral.isPaired { return Just(()).setFailureType(to: BluetoothError.self).eraseToAnyPublisher() }
            // A cancel that comes after bluetoothd answered (`first()` cancels its upstream on the value, as the
            // async form's does) must not cancel a pairing that has succeeded.
            let answered = PairingAnswer()
            return core.connection.call(
                destination: BlueZ.service, path: peripheral.path, interface: BlueZ.device, member: "Pair",
                timeout: timeout
            )
            .handleEvents(
                receiveOutput: { _ in answered.note() },
                receiveCancel: { if !answered.isNoted { peripheral.cancelPairing() } }
            )
            .map { _ in () }
            .catch { error -> AnyPublisher<Void, BluetoothError> in
                if error.remoteName == "org.bluez.Error.AlreadyExists" {
                    return Just(()).setFailureType(to: BluetoothError.self).eraseToAnyPublisher()
                }
                if error == .timedOut { peripheral.cancelPairing() }
                return Fail(error: BluetoothError(error, during: "pairing with \(peripheral.address)"))
                    .eraseToAnyPublisher()
            }
            .eraseToAnyPublisher()
        }.eraseToAnyPublisher()
    }

    /// Whether bluetoothd has answered one `Pair()` call, from whichever thread delivers the answer or the cancel.
    private final class PairingAnswer: Sendable {
        private let state = Mutex(false)

        /// Notes that bluetoothd answered.
        func note() { state.withLock { $0 = true } }

        /// Whether bluetoothd answered.
        var isNoted: Bool { state.withLock { $0 } }
    }

    /// Asks bluetoothd to cancel the device's pairing (`Device1.CancelPairing()`), wanting no reply: sent
    /// after the `Pair()` call on the same connection, so bluetoothd sees the pairing first.
    private func cancelPairing() {
        guard
            var message = try? DBusMessage.methodCall(
                destination: BlueZ.service, path: path, interface: BlueZ.device, member: "CancelPairing")
        else { return }
        message.noReplyExpected = true
        try? central.core.connection.send(message)
    }
}
