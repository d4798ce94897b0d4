import Ripple
import RippleDBus

/// `org.freedesktop.DBus.ObjectManager`, where bluetoothd answers `GetManagedObjects`.
private let objectManager = "org.freedesktop.DBus.ObjectManager"

extension CentralCore {
    /// Reads bluetoothd's tree again and takes the part below the device at `device` from it; the end
    /// goes to the device's connection machine (``ConnectionStateMachine/Event/treeRefreshed(hasTasks:)``).
    ///
    /// Why: bluetoothd can signal `ServicesResolved = true` before the `InterfacesAdded` of the GATT
    /// objects it announces (its GDBus layer flushes each object's pending signals from an idle callback
    /// of its own; bluez issue 1489). Every message bluetoothd sends — an answer included — first flushes
    /// every pending signal, and `GetManagedObjects` lists every object exported, signalled or not: once
    /// it answers, the tree holds the whole database.
    ///
    /// - Parameter device: the device's object path.
    /// - Returns: the call under way.
    func refreshTree(of device: DBusObjectPath) -> AnyCancellable {
        connection.call(
            destination: BlueZ.service, path: .root, interface: objectManager, member: "GetManagedObjects"
        ).sink(
            receiveCompletion: { [weak self] completion in
                guard case .failure(let error) = completion else { return }
                let failure = BluetoothError(error, during: "reading bluetoothd's objects")
                self?.perform { [weak self] in self?.connectionEvent(device, .refreshFailed(failure)) }
            },
            receiveValue: { [weak self] reply in
                self?.perform { [weak self] in
                    guard let self else { return }
                    do throws(DBusDecodingError) {
                        let objects = try reply.decodeArgument(DBusManagedObjects.self, at: 0)
                        adoptRefreshed(objects, below: device)
                        connectionEvent(device, .treeRefreshed(hasTasks: hasConnectionTasks(device)))
                    } catch {
                        connectionEvent(
                            device,
                            .refreshFailed(BluetoothError(.failed, "bluetoothd's objects could not be read: \(error)")))
                    }
                }
            })
    }

    /// Makes the tree below `device` what `objects` say, through the same changes bluetoothd's signals
    /// make (so every part of the central reacts as it would to them): objects added or changed, then
    /// objects gone.
    private func adoptRefreshed(_ objects: DBusManagedObjects, below device: DBusObjectPath) {
        let prefix = device.description + "/"
        let current = mirror.withLock { mirror in mirror.tree.objects.filter { $0.key.description.hasPrefix(prefix) } }
        let fresh = objects.filter { $0.key.description.hasPrefix(prefix) }
        for path in fresh.keys.sorted() {
            guard let interfaces = fresh[path], current[path] != interfaces else { continue }
            apply(.interfacesAdded(path, interfaces))
        }
        for path in current.keys.sorted(by: >) where fresh[path] == nil {
            apply(.interfacesRemoved(path, (current[path] ?? [:]).keys.sorted()))
        }
    }
}
