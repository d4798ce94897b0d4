import Ripple
import RippleDBus

/// A central connected to the adapter a ``PeripheralManager`` serves on.
public struct ConnectedCentral: Sendable, Hashable {
    /// The central's address.
    public var address: BluetoothAddress
    /// bluetoothd's object for it (what ``ReadRequest/device`` and ``WriteRequest/device`` name).
    public var device: DBusObjectPath
    /// Its name, when bluetoothd knows one.
    public var name: String?
}

extension PeripheralManager {
    /// The centrals connected to the manager's adapter: a *state* stream (the current list first, then
    /// the latest list after each change, coalesced), in address order.
    ///
    /// It follows bluetoothd's `Device1` objects below the adapter whose `Connected` is true, and
    /// bluetoothd's restarts (the list empties, then fills again). Each subscriber reads bluetoothd's
    /// objects first: its first value is the list they hold (empty when bluetoothd is not running), never
    /// an empty list given before they were read.
    ///
    /// - Returns: the lists; fails with a ``BluetoothError`` when the bus connection fails.
    public var connectedCentrals: AnyPublisher<[ConnectedCentral], BluetoothError> {
        let connection = core.connection
        let adapter = core.adapterPath.rawValue + "/"
        let loop = core.loop
        return Deferred { () -> AnyPublisher<[ConnectedCentral], BluetoothError> in
            // Nil until bluetoothd's objects are read, and never delivered: an empty list given before then
            // would be a stale first value while centrals are connected.
            let subject = StateSubject<[ConnectedCentral]?, BluetoothError>(nil, context: .loop(loop))
            let upstream = connection.managedObjectsState(destination: BlueZ.service).sink(
                receiveCompletion: { completion in
                    if case .failure(let error) = completion {
                        subject.send(completion: .failure(BluetoothError(error, during: "following the centrals")))
                    }
                },
                receiveValue: { state in
                    let centrals = state.objects(implementing: BlueZ.device).compactMap { path -> ConnectedCentral? in
                        guard path.rawValue.hasPrefix(adapter),
                            let device = state.properties(of: path, interface: BlueZ.device),
                            device["Connected"]?.unwrappingVariants.boolean == true,
                            let text = device["Address"]?.unwrappingVariants.string,
                            let address = try? BluetoothAddress(text)
                        else { return nil }
                        return ConnectedCentral(
                            address: address, device: path, name: device["Name"]?.unwrappingVariants.string)
                    }
                    subject.send(centrals.sorted { $0.address < $1.address })
                })
            return subject.compactMap { $0 }.handleEvents(receiveCancel: { upstream.cancel() }).eraseToAnyPublisher()
        }.eraseToAnyPublisher()
    }

    /// Disconnects `central` (bluetoothd's `Device1.Disconnect`): a *single-value* publisher.
    ///
    /// - Parameters:
    ///   - central: the central.
    ///   - timeout: the longest to wait for bluetoothd's answer.
    /// - Returns: a publisher that emits once the link is down, then finishes; fails with bluetoothd's
    ///   error as a ``BluetoothError``, or with ``BluetoothError/Kind/timeout`` when bluetoothd has not
    ///   answered within `timeout`.
    public func disconnect(_ central: ConnectedCentral, timeout: Duration = .seconds(30))
        -> AnyPublisher<Void, BluetoothError>
    {
        core.connection.call(
            destination: BlueZ.service, path: central.device, interface: BlueZ.device, member: "Disconnect",
            timeout: timeout
        )
        .map { _ in () }
        .mapError { BluetoothError($0, during: "disconnecting \(central.address)") }
        .eraseToAnyPublisher()
    }
}
