import Ripple
import RippleDBus
import RippleLoop

extension BlueZSimulator {
    // MARK: The world

    /// Adds an adapter (exported at once while running).
    ///
    /// - Parameter adapter: the adapter.
    /// - Throws: ``SimulatorError/invalidWorld(_:)`` for a name already taken or unusable in a path, or a malformed
    ///   address; ``SimulatorError/notRunning`` before ``start()`` and after ``stop()``.
    public func addAdapter(_ adapter: SimulatedAdapter) async throws(SimulatorError) {
        try await withCore { core throws(SimulatorError) in try core.addAdapter(adapter) }
    }

    /// Adds a peripheral near the adapter named `adapter`: it advertises from now on (and is in the tree at
    /// once when it is known or paired).
    ///
    /// - Parameters:
    ///   - peripheral: the peripheral.
    ///   - adapter: the name of the adapter that sees it.
    /// - Throws: ``SimulatorError/invalidWorld(_:)`` for an unknown adapter, a malformed or taken address, or a GATT
    ///   database that is not valid; ``SimulatorError/notRunning`` before ``start()`` and after ``stop()``.
    public func addPeripheral(_ peripheral: SimulatedPeripheral, adapter: String = "hci0") async throws(SimulatorError)
    {
        try await withCore { core throws(SimulatorError) in try core.addPeripheral(peripheral, adapter: adapter) }
    }

    /// Removes a peripheral from the world: its link drops and its device leaves the tree.
    ///
    /// - Parameter address: the peripheral's address.
    /// - Throws: ``SimulatorError/unknownPeripheral(_:)`` when no peripheral has `address`;
    ///   ``SimulatorError/notRunning`` before ``start()`` and after ``stop()``.
    public func removePeripheral(_ address: BluetoothAddress) async throws(SimulatorError) {
        try await withCore { core throws(SimulatorError) in try core.removePeripheral(address) }
    }

    /// Changes what a peripheral advertises (`body` edits a copy of its description: name, RSSI, TX power,
    /// manufacturer and service data, advertised services, interval, variation). Changes show in
    /// `PropertiesChanged` of its device, as bluetoothd reports a new advertisement.
    ///
    /// - Parameters:
    ///   - peripheral: the peripheral's address.
    ///   - body: what edits the copy.
    /// - Throws: ``SimulatorError/unknownPeripheral(_:)`` when no peripheral of the world has that address;
    ///   ``SimulatorError/notRunning`` before ``start()`` and after ``stop()``.
    public func updateAdvertisement(
        of peripheral: BluetoothAddress, _ body: @escaping @Sendable (inout SimulatedPeripheral) -> Void
    ) async throws(SimulatorError) {
        try await withDevice(peripheral) { device throws(SimulatorError) in
            let previous = device.peripheral
            var updated = previous
            body(&updated)
            guard updated.address == previous.address else {
                throw .invalidWorld("an advertisement update cannot change the address of \(previous.address)")
            }
            updated.services = previous.services
            device.peripheral = updated
            device.advertisementChanged(previous: previous)
        }
    }

    // MARK: Faults and events

    /// Powers the adapter named `adapter` on or off. Off: discovery stops, connections drop (reason
    /// "local"), and bluetoothd answers discovery and connection calls with `NotReady`.
    ///
    /// - Parameters:
    ///   - powered: on (true) or off.
    ///   - adapter: the adapter's name (`hci0`).
    /// - Throws: ``SimulatorError/invalidWorld(_:)`` for an unknown adapter; ``SimulatorError/notRunning`` before
    ///   ``start()`` and after ``stop()``.
    public func setPowered(_ powered: Bool, adapter: String) async throws(SimulatorError) {
        try await withCore { core throws(SimulatorError) in
            guard let runtime = core.adapter(named: adapter) else {
                throw .invalidWorld("no adapter is named \(adapter)")
            }
            runtime.setPowered(powered)
        }
    }

    /// Moves a peripheral into range or out of it. Out of range it stops advertising (its device ages out
    /// of the tree), a connection drops with reason "timeout" (supervision timeout), and connection
    /// attempts fail after the connect timeout.
    ///
    /// - Parameters:
    ///   - inRange: whether the peripheral is in range.
    ///   - peripheral: the peripheral's address.
    /// - Throws: ``SimulatorError/unknownPeripheral(_:)`` when no peripheral of the world has that address;
    ///   ``SimulatorError/notRunning`` before ``start()`` and after ``stop()``.
    public func setInRange(_ inRange: Bool, peripheral: BluetoothAddress) async throws(SimulatorError) {
        try await withDevice(peripheral) { device in
            device.isInRange = inRange
            if !inRange { device.peripheralDisconnected(reason: .timeout) }
            device.updateAdvertising()
        }
    }

    /// The peripheral drops its connection (or aborts a connection attempt); the device reports
    /// `Disconnected(reason)`. Does nothing when it is not connected.
    ///
    /// - Parameters:
    ///   - peripheral: the peripheral's address.
    ///   - reason: the reason the device reports.
    /// - Throws: ``SimulatorError/unknownPeripheral(_:)`` when no peripheral of the world has that address;
    ///   ``SimulatorError/notRunning`` before ``start()`` and after ``stop()``.
    public func disconnect(peripheral: BluetoothAddress, reason: DisconnectReason = .remote)
        async throws(SimulatorError)
    {
        try await withDevice(peripheral) { device in device.peripheralDisconnected(reason: reason) }
    }

    /// The peripheral drops its connection `delay` from now (when it is connected then).
    ///
    /// - Parameters:
    ///   - peripheral: the peripheral's address.
    ///   - delay: how long from now.
    ///   - reason: the reason the device reports.
    /// - Throws: ``SimulatorError/unknownPeripheral(_:)`` when no peripheral of the world has that address;
    ///   ``SimulatorError/notRunning`` before ``start()`` and after ``stop()``.
    public func disconnect(peripheral: BluetoothAddress, after delay: Duration, reason: DisconnectReason = .remote)
        async throws(SimulatorError)
    {
        try await withDevice(peripheral) { device in
            guard let loop = device.core?.loop else { return }
            loop.later(delay) { [weak device] in device?.peripheralDisconnected(reason: reason) }
        }
    }

    /// The next `times` calls of `operation` on the peripheral (nil: every call) meet `fault` instead
    /// of the normal answer. Faults wait in the order they were injected.
    ///
    /// - Parameters:
    ///   - fault: what the calls meet.
    ///   - operation: the operation whose calls meet it.
    ///   - peripheral: the peripheral's address.
    ///   - times: how many calls meet it; nil for every call.
    /// - Throws: ``SimulatorError/invalidWorld(_:)`` when `times` is less than 1;
    ///   ``SimulatorError/unknownPeripheral(_:)`` when no peripheral of the world has that address;
    ///   ``SimulatorError/notRunning`` before ``start()`` and after ``stop()``.
    public func inject(
        _ fault: OperationFault, on operation: SimulatedOperation, of peripheral: BluetoothAddress, times: Int? = 1
    )
        async throws(SimulatorError)
    {
        if let times, times < 1 { throw .invalidWorld("a fault must apply at least once (times: \(times))") }
        try await withDevice(peripheral) { device in device.faults.add(fault, on: operation, times: times) }
    }

    /// Removes every fault waiting for the peripheral's operations.
    ///
    /// - Parameter peripheral: the peripheral's address.
    /// - Throws: ``SimulatorError/unknownPeripheral(_:)`` when no peripheral of the world has that address;
    ///   ``SimulatorError/notRunning`` before ``start()`` and after ``stop()``.
    public func clearFaults(of peripheral: BluetoothAddress) async throws(SimulatorError) {
        try await withDevice(peripheral) { device in device.faults.removeAll() }
    }

    /// The peripheral notifies `value` on `characteristic`: clients with notifications enabled receive
    /// it; the value is stored either way.
    ///
    /// - Parameters:
    ///   - peripheral: the peripheral's address.
    ///   - characteristic: the characteristic's UUID.
    ///   - value: the bytes notified.
    /// - Throws: ``SimulatorError/unknownAttribute(_:)`` when it has no such characteristic;
    ///   ``SimulatorError/unknownPeripheral(_:)`` when no peripheral of the world has that address;
    ///   ``SimulatorError/notRunning`` before ``start()`` and after ``stop()``.
    public func notify(peripheral: BluetoothAddress, characteristic: BluetoothUUID, value: [UInt8])
        async throws(SimulatorError)
    {
        try await withDevice(peripheral) { device throws(SimulatorError) in
            try device.gatt.notify(characteristic, value: value)
        }
    }

    /// Returns once a client has notifications of the peripheral's `characteristic` enabled (a
    /// `StartNotify` session or an `AcquireNotify` socket): at once if one has, else when the next one
    /// does, across reconnections. A test calls it between subscribing and ``notify(peripheral:characteristic:value:)``
    /// so that no notification goes out before anyone listens.
    ///
    /// - Parameters:
    ///   - peripheral: the peripheral's address.
    ///   - characteristic: the characteristic's UUID.
    /// - Throws: ``SimulatorError/unknownAttribute(_:)`` when the peripheral has no such characteristic;
    ///   ``SimulatorError/unknownPeripheral(_:)`` when no peripheral of the world has that address;
    ///   ``SimulatorError/notRunning`` before ``start()`` and after ``stop()``.
    public func waitUntilNotifying(peripheral: BluetoothAddress, characteristic: BluetoothUUID)
        async throws(SimulatorError)
    {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        try await withDevice(peripheral) { device throws(SimulatorError) in
            try device.gatt.whenNotifying(characteristic) {
                continuation.yield()
                continuation.finish()
            }
        }
        for await _ in stream { return }
    }

    /// The peripheral's GATT database becomes `services` (a firmware update): while it is connected its
    /// old service, characteristic and descriptor objects are removed and the new ones added — with new
    /// handles and paths where the layout changed — as bluetoothd shows a re-discovery after a Service
    /// Changed indication; the link stays up.
    ///
    /// With `rediscovery`, the new objects come that long after the old ones went (bluetoothd reading the
    /// changed range over the link), unless the link ends first. While the peripheral is disconnected, its
    /// next connection then resolves from bluetoothd's stale cache at once and finds the change out
    /// `rediscovery` later; without it, the next connection finds the change out before resolving.
    ///
    /// - Parameters:
    ///   - peripheral: the peripheral's address.
    ///   - services: its new database.
    ///   - rediscovery: how long bluetoothd takes to export the new database, or nil for at once.
    /// - Throws: ``SimulatorError/invalidWorld(_:)`` for a malformed database.
    public func changeServices(
        of peripheral: BluetoothAddress, to services: [SimulatedService], rediscovery: Duration? = nil
    ) async throws(SimulatorError) {
        try await withDevice(peripheral) { device throws(SimulatorError) in
            try device.gatt.replace(with: services, rediscovery: rediscovery)
        }
    }

    /// bluetoothd "restarts": releases `org.bluez` and takes its whole tree down (connections, sessions
    /// and sockets end), waits `downtime`, then exports a fresh tree — adapters as configured (powered as
    /// at first), only paired and known devices — and takes the name back.
    ///
    /// - Parameter downtime: how long bluetoothd is away.
    /// - Throws: ``SimulatorError/bus(_:)`` when the bus refuses the name's release or its return;
    ///   ``SimulatorError/notRunning`` before ``start()`` and after ``stop()``.
    public func restart(downtime: Duration = .zero) async throws(SimulatorError) {
        let connection = try await withCore { core in core.connection }
        do {
            for try await _ in connection.releaseName(BlueZInterface.service).values {}
        } catch {
            throw .bus(error as? DBusError ?? .disconnected)
        }
        try await withCore { core in core.unexportTree() }
        if downtime > .zero {
            try? await Task.sleep(for: downtime)
        }
        try await withCore { core throws(SimulatorError) in
            for adapter in core.adapters where adapter.isPowered != adapter.configuration.isPowered {
                adapter.setPowered(adapter.configuration.isPowered)
            }
            try core.exportTree()
        }
        do {
            for try await reply in connection.requestName(BlueZInterface.service, flags: [.doNotQueue]).values
            where reply != .primaryOwner && reply != .alreadyOwner {
                throw SimulatorError.bus(
                    .remote(
                        name: "org.freedesktop.DBus.Error.AddressInUse",
                        message: "org.bluez was taken during the restart"))
            }
        } catch let error as SimulatorError {
            throw error
        } catch {
            throw .bus(error as? DBusError ?? .disconnected)
        }
    }

    // MARK: State

    /// The latest messages the simulator sent in the shuffled order, oldest first, one line each (up to
    /// 4,096): `+path [interfaces]` for `InterfacesAdded`, `-path [interfaces]` for `InterfacesRemoved`,
    /// `path Interface {name=value, …}` for `PropertiesChanged`, `reply Member` and `error Member Name` for
    /// answers, paths shortened below `/org/bluez/`. Every client receives what it receives of them in this
    /// order. Empty in order (``SignalOrder/inOrder``). For finding out what a failing seed did.
    ///
    /// - Returns: The lines, oldest first.
    /// - Throws: ``SimulatorError/notRunning`` before ``start()`` and after ``stop()``.
    public func signalTrace() async throws(SimulatorError) -> [String] {
        try await withCore { core in core.outbox?.trace.map(\.description) ?? [] }
    }

    /// The stored value of a characteristic or descriptor of the peripheral, or nil when it has none.
    ///
    /// - Parameters:
    ///   - attribute: the characteristic's or descriptor's UUID.
    ///   - peripheral: the peripheral's address.
    /// - Returns: the stored bytes, or nil.
    /// - Throws: ``SimulatorError/unknownPeripheral(_:)`` when no peripheral of the world has that address;
    ///   ``SimulatorError/notRunning`` before ``start()`` and after ``stop()``.
    public func value(of attribute: BluetoothUUID, peripheral: BluetoothAddress) async throws(SimulatorError)
        -> [UInt8]?
    {
        try await withDevice(peripheral) { device in device.gatt.value(of: attribute) }
    }

    /// Whether the peripheral is connected (its link up and services resolved).
    ///
    /// - Parameter peripheral: the peripheral's address.
    /// - Returns: whether it is connected.
    /// - Throws: ``SimulatorError/unknownPeripheral(_:)`` when no peripheral of the world has that address;
    ///   ``SimulatorError/notRunning`` before ``start()`` and after ``stop()``.
    public func isConnected(_ peripheral: BluetoothAddress) async throws(SimulatorError) -> Bool {
        try await withDevice(peripheral) { device in device.isConnected }
    }

    /// Whether the peripheral's device is in bluetoothd's tree.
    ///
    /// - Parameter peripheral: the peripheral's address.
    /// - Returns: whether its `Device1` object is exported.
    /// - Throws: ``SimulatorError/unknownPeripheral(_:)`` when no peripheral of the world has that address;
    ///   ``SimulatorError/notRunning`` before ``start()`` and after ``stop()``.
    public func isInTree(_ peripheral: BluetoothAddress) async throws(SimulatorError) -> Bool {
        try await withDevice(peripheral) { device in device.object != nil }
    }

    /// The unique bus names of the clients discovering on the adapter named `adapter`.
    ///
    /// - Parameter adapter: the adapter's name.
    /// - Returns: the clients' unique bus names.
    /// - Throws: ``SimulatorError/invalidWorld(_:)`` for an unknown adapter; ``SimulatorError/notRunning`` before
    ///   ``start()`` and after ``stop()``.
    public func discoveringClients(adapter: String = "hci0") async throws(SimulatorError) -> [String] {
        try await withCore { core throws(SimulatorError) in
            guard let runtime = core.adapter(named: adapter) else {
                throw .invalidWorld("no adapter is named \(adapter)")
            }
            return runtime.discoveringClients
        }
    }

    /// Problems the simulator met while serving and survived (an object it could not export, …), oldest
    /// first; empty when all went well.
    ///
    /// - Returns: one sentence per problem, oldest first.
    /// - Throws: ``SimulatorError/notRunning`` before ``start()`` and after ``stop()``.
    public func problems() async throws(SimulatorError) -> [String] {
        try await withCore { core in core.problems }
    }
}
