import Ripple
import RippleDBus

/// A connected peripheral lent to another tool (a firmware updater, a vendor's utility): what it needs
/// to talk to bluetoothd about the peripheral itself, while the central keeps its hands off.
///
/// While the hand-over lasts, the peripheral's notification sessions are stopped (their listeners wait,
/// nothing ends them), its GATT operations wait in its queue, and a dropped link is not reconnected.
/// ``takeBack()`` (or releasing the hand-over) gives it back: the sessions start again and the waiting
/// operations run.
public final class PeripheralHandOver: Sendable {
    /// The peripheral lent.
    public let peripheral: Peripheral
    /// The connection the central talks to bluetoothd on (the other tool may use it or its own).
    public let connection: DBusConnection
    /// The device's object path (`org.bluez.Device1`).
    public var devicePath: DBusObjectPath { peripheral.path }
    /// The object paths of its GATT services, characteristics and descriptors, by UUID, as resolved now.
    public let attributePaths: [BluetoothUUID: [DBusObjectPath]]

    private let core: CentralCore
    private let returned = LockedState(false)

    init(peripheral: Peripheral, core: CentralCore) {
        self.peripheral = peripheral
        self.core = core
        connection = core.connection
        var paths: [BluetoothUUID: [DBusObjectPath]] = [:]
        for service in core.services(of: peripheral.path) {
            paths[service.uuid, default: []].append(service.path)
            for characteristic in service.characteristics {
                paths[characteristic.uuid, default: []].append(characteristic.path)
                for descriptor in characteristic.descriptors {
                    paths[descriptor.uuid, default: []].append(descriptor.path)
                }
            }
        }
        attributePaths = paths
    }

    /// Gives the peripheral back to the central: its listeners' sessions start again (if it is still
    /// connected) and its waiting operations run. Idempotent.
    public func takeBack() {
        guard
            !returned.withLock({ value in
                defer { value = true }
                return value
            })
        else { return }
        core.endHandOver(peripheral)
    }

    deinit {
        takeBack()
    }
}

extension Peripheral {
    /// Lends the peripheral to another tool: see ``PeripheralHandOver``. Returns once bluetoothd has
    /// seen the central's notification sockets closed (so that the tool may acquire them), or after
    /// 2 seconds.
    ///
    /// - Returns: the hand-over, which gives the peripheral back when it ends.
    /// - Throws: ``BluetoothError/Kind/notConnected`` when it is not connected and resolved,
    ///   ``BluetoothError/Kind/inProgress`` when it is already handed over.
    public func handOver() async throws(BluetoothError) -> PeripheralHandOver {
        let core = central.core
        let peripheral = self
        let lent = await withCheckedContinuation { continuation in
            core.perform { continuation.resume(returning: core.lend(peripheral)) }
        }
        let acquired: [DBusObjectPath]
        switch lent {
        case .success(let paths): acquired = paths
        case .failure(let error): throw error
        }
        await core.waitUntilReleased(acquired, within: .seconds(2))
        return PeripheralHandOver(peripheral: self, core: core)
    }
}

extension CentralCore {
    /// Returns once bluetoothd reports `NotifyAcquired` false for every characteristic at `paths`, or
    /// after `limit`.
    func waitUntilReleased(_ paths: [DBusObjectPath], within limit: Duration) async {
        guard !paths.isEmpty else { return }
        let stillAcquired: @Sendable () -> Bool = { [self] in
            mirror.withLock { mirror in
                paths.contains {
                    mirror.tree.properties(of: $0, interface: BlueZ.characteristic)?["NotifyAcquired"]?.boolean == true
                }
            }
        }
        let (changes, continuation) = AsyncStream<Void>.makeStream()
        let watch = treeEvents.sink { _ in continuation.yield() }
        let timer = loop.after(limit) { continuation.finish() }
        defer {
            watch.cancel()
            timer.cancel()
        }
        guard stillAcquired() else { return }
        for await _ in changes where !stillAcquired() { return }
    }

    /// Lends `peripheral`: its queue holds, its notification sessions stop.
    ///
    /// - Parameter peripheral: the peripheral to lend.
    /// - Returns: the characteristics whose notification sockets were open (bluetoothd must see them
    ///   closed), or why it cannot be lent.
    func lend(_ peripheral: Peripheral) -> Result<[DBusObjectPath], BluetoothError> {
        if let error = gattError(peripheral) { return .failure(error) }
        guard confined.value.handedOver.insert(peripheral.path).inserted else {
            return .failure(BluetoothError(.inProgress, "\(peripheral.address) is already handed over"))
        }
        queueEvent(peripheral.path, .hold(.handOver))
        let prefix = peripheral.path.description + "/"
        let acquired = confined.value.sessions.filter {
            $0.key.description.hasPrefix(prefix) && $0.value.socket != nil
        }.map(\.key)
        suspendNotifications(under: peripheral.path)
        return .success(acquired)
    }

    /// A hand-over ended: the queue lets go, and the sessions start again when the link is up (or the
    /// reconnection held for it goes).
    ///
    /// - Parameter peripheral: the peripheral given back.
    func endHandOver(_ peripheral: Peripheral) {
        perform { [self] in
            guard confined.value.handedOver.remove(peripheral.path) != nil else { return }
            queueEvent(peripheral.path, .release(.handOver))
            if gattError(peripheral) == nil {
                rearmNotifications(under: peripheral.path, peripheral: peripheral)
            } else if canReconnect(peripheral.path), heldForReconnection().contains(peripheral.path) {
                connectionEvent(peripheral.path, .reconnectAllowed)
            }
        }
    }
}
