import Ripple
import RippleBlueZ
import Synchronization

/// One peripheral of the soak, flooding a numbered characteristic over one notification path, and the
/// listeners that consume it: connected under an auto-reconnect policy, and connected again and
/// listened to again whenever its streams end (bluetoothd restarted, the policy gave up).
final class SoakLane: Sendable {
    let name: String
    let address: BluetoothAddress
    let transport: NotificationTransport
    let listeners: [SoakListener]
    private let failures = Mutex<[String: Int]>([:])

    /// A lane for the peripheral at `address`, listened to over `transport` by `listeners`.
    init(name: String, address: BluetoothAddress, transport: NotificationTransport, listeners: [SoakListener]) {
        self.name = name
        self.address = address
        self.transport = transport
        self.listeners = listeners
    }

    /// Connection failures by error kind.
    var connectionFailures: [String: Int] { failures.withLock { $0 } }

    /// Runs each listener until the task is cancelled: it connects (sharing the central's one attempt per
    /// peripheral, or finding the peripheral connected), listens until its stream ends, waits a little,
    /// and starts again.
    ///
    /// - Parameters:
    ///   - central: the central.
    ///   - characteristic: the numbered characteristic.
    func run(on central: Central, characteristic: CharacteristicReference) async {
        await withTaskGroup(of: Void.self) { group in
            for listener in listeners {
                group.addTask { await self.run(listener, on: central, characteristic: characteristic) }
            }
        }
    }

    private func run(_ listener: SoakListener, on central: Central, characteristic: CharacteristicReference) async {
        let policy = ReconnectPolicy(delays: [.zero, .milliseconds(100), .milliseconds(500)])
        while !Task.isCancelled {
            do {
                let peripheral = try await central.connectPeripheral(
                    to: address, timeout: .seconds(10), autoReconnect: policy)
                await listener.listen(to: characteristic, of: peripheral, transport: transport, central: central)
            } catch {
                failures.withLock { $0["\(error.kind)", default: 0] += 1 }
            }
            try? await Task.sleep(for: .milliseconds(200))
        }
    }
}
