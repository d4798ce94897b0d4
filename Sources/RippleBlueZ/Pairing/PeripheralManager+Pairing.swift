import RippleDBus
import Synchronization

extension PeripheralManager {
    private static let agents = Atomic<Int>(0)

    /// Registers a pairing agent on the manager's connection that answers bluetoothd's pairing questions
    /// with `handler` — for a central that pairs with this machine to read or write a characteristic
    /// that requires encryption or authentication.
    ///
    /// bluetoothd asks the default agent about pairings a remote central starts, so keep `asDefault` unless
    /// another program on this machine answers them. The handler gets the central's address.
    ///
    /// - Parameters:
    ///   - capability: what the person can do on this side (it decides the pairing method).
    ///   - asDefault: whether the agent answers pairings that no program on this machine started.
    ///   - handler: answers each question (on the loop thread; it may take its time).
    /// - Returns: the agent; ``PairingAgent/unregister()`` (or releasing it) takes it away.
    /// - Throws: ``BluetoothError`` with bluetoothd's error (``BluetoothError/Kind/failed`` with
    ///   `AlreadyExists` when this connection has an agent).
    public func registerPairingAgent(
        capability: PairingCapability = .keyboardDisplay, asDefault: Bool = true, handler: @escaping PairingHandler
    ) async throws(BluetoothError) -> PairingAgent {
        let number = Self.agents.wrappingAdd(1, ordering: .relaxed).oldValue
        return try await PairingAgent.register(
            on: core.connection, path: "\(core.root.rawValue)/agent\(number)", capability: capability,
            asDefault: asDefault, handler: handler)
    }
}
