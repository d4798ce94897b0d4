import Ripple
import RippleBlueZ
import Synchronization

extension Publisher where Output == PeripheralDiscovery, Failure == BluetoothError {
    /// The first discovery of the peripheral at `address`, or of any when nil; prints it.
    public func first(address: BluetoothAddress?) -> AnyPublisher<PeripheralDiscovery, BluetoothError> {
        first { address == nil || $0.address == address }
            .handleEvents(receiveOutput: { Swift.print("Found \($0)") })
            .eraseToAnyPublisher()
    }
}

/// The peripheral a pipeline connected to, kept so that the example can disconnect it at the end.
public final class ConnectedPeripheral: Sendable {
    private let stored = Mutex<Peripheral?>(nil)

    /// Nothing connected yet.
    public init() {}

    /// The peripheral, once connected.
    public var peripheral: Peripheral? { stored.withLock { $0 } }

    /// Keeps `peripheral` and says so.
    public func keep(_ peripheral: Peripheral) {
        stored.withLock { $0 = peripheral }
        print("Connected to \(peripheral.name ?? "?") (\(peripheral.address)), services resolved")
    }

    /// Disconnects it, if there is one, and says so.
    public func disconnectPeripheral() async throws {
        guard let peripheral else { return }
        try await peripheral.disconnectPeripheral()
        print("Disconnected from \(peripheral.address)")
    }
}
