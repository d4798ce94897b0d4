import Ripple
import RippleDBus
import RippleLoop

/// One peripheral of the world as bluetoothd knows it: its `Device1` object while it is in the tree, its
/// connection, and its GATT database (loop-confined: everything runs on the simulator's loop thread).
final class SimulatedDevice: Sendable {
    /// The peripheral as described (advertisement data may be updated by scripting).
    nonisolated(unsafe) var peripheral: SimulatedPeripheral
    /// The adapter that sees it.
    unowned let adapter: AdapterRuntime
    /// Its GATT database, which keeps its values across connections.
    let gatt: any PeripheralGATT
    /// Faults waiting for its operations.
    let faults = FaultBook()

    /// Whether it is in range now.
    nonisolated(unsafe) var isInRange: Bool
    /// Whether it is paired (bonded): kept by bluetoothd across restarts.
    nonisolated(unsafe) var isPaired: Bool
    /// The exported `Device1` object, while the device is in bluetoothd's tree.
    nonisolated(unsafe) private(set) var object: DBusExportedObject?
    /// How many advertisements it has sent (drives the RSSI pattern).
    nonisolated(unsafe) private var advertisementCount = 0
    /// The RSSI last signalled, for bluetoothd's change threshold.
    nonisolated(unsafe) private var signalledRSSI: Int16?
    /// The name and TX power an advertisement last put on the object (nil: the next one puts them, as
    /// something else may have changed them since).
    nonisolated(unsafe) private var advertisedFields: AdvertisedFields?
    /// The advertising timer while the adapter discovers.
    nonisolated(unsafe) private var advertising: (any Cancellable)?
    /// Removes the device when it has not been seen for the adapter's timeout.
    nonisolated(unsafe) var expiry: AnyCancellable?

    /// Where the connection is.
    enum LinkState {
        case disconnected
        /// `Connect()` is under way; the invocation is answered when it ends.
        case connecting(DBusMethodInvocation, pending: AnyCancellable?)
        /// The link is up; `resolving` is the pending GATT discovery until `ServicesResolved`.
        case connected(PeripheralLink, silent: Bool, resolving: AnyCancellable?)
    }
    nonisolated(unsafe) var linkState: LinkState = .disconnected
    /// A `Pair()` under way: the call, what ends it (a timer or the agent's question), and the agent whose
    /// question is unanswered.
    struct Pairing {
        var invocation: DBusMethodInvocation
        var pending: AnyCancellable?
        /// Gets `Agent1.Cancel()` when the pairing is cancelled.
        var askedAgent: (name: String, path: DBusObjectPath)?
    }
    nonisolated(unsafe) var pairing: Pairing?
    /// How many `Device1.CancelPairing()` calls the device has received, answered or refused.
    nonisolated(unsafe) var cancelPairingCalls = 0

    init(peripheral: SimulatedPeripheral, adapter: AdapterRuntime, gatt: any PeripheralGATT) {
        self.peripheral = peripheral
        self.adapter = adapter
        self.gatt = gatt
        self.isInRange = peripheral.isInRange
        self.isPaired = peripheral.isPaired
    }

    var core: SimulatorCore? { adapter.core }

    /// The device's object path.
    var path: DBusObjectPath {
        (try? adapter.path.appending(peripheral.address.bluezPathComponent)) ?? adapter.path
    }

    var isConnected: Bool {
        if case .connected = linkState { return true }
        return false
    }

    /// Whether bluetoothd keeps the device when it is not seen (stored devices).
    var isStored: Bool { isPaired || peripheral.isKnown || hasConnected }
    /// Whether the device was connected since it was last removed: bluetoothd makes a device it
    /// connects to non-temporary (stored), so it no longer ages out.
    nonisolated(unsafe) var hasConnected = false

    /// Answers a call on a device that no longer exists.
    static func gone(_ invocation: DBusMethodInvocation) {
        _ = invocation.fail(BlueZError.doesNotExist.dbusError)
    }

    // MARK: The object

    /// Puts the device in the tree (`InterfacesAdded`) if it is not there; when it was just seen
    /// advertising at `rssi`, `InterfacesAdded` carries what bluetoothd saw (RSSI, TX power, flags).
    func ensureObject(seenAt rssi: Int16? = nil) {
        guard object == nil, let core else { return }
        do {
            let created = try DBusExportedObject(
                path: path,
                interfaces: [
                    makeDeviceInterface(for: peripheral, adapterPath: adapter.path, paired: isPaired, device: self)
                ])
            if let rssi {
                var seen: [String: DBusValue] = ["RSSI": .int16(rssi), "AdvertisingFlags": .bytes([0x06])]
                if let txPower = peripheral.txPower { seen["TxPower"] = .int16(txPower) }
                try created.updateProperties(of: BlueZInterface.device, seen)
            }
            try core.connection.export(created)
            object = created
            signalledRSSI = nil
            advertisedFields = nil
        } catch {
            core.report("could not export the device \(peripheral.address): \(error)")
        }
    }

    /// Takes the device out of the tree (dropping its link first).
    func removeObject() {
        expiry = nil
        if case .connecting(let invocation, _) = linkState, let core, core.outbox != nil {
            // Shuffled, as bluetoothd 5.66: device_free drops the pending Connect() message unanswered
            // (its caller's own timeout ends the call) while InterfacesRemoved goes out.
            linkState = .disconnected
            core.leaveUnanswered(invocation)
            adapter.connectionAttemptChanged()
        }
        if case .connecting = linkState { finishConnecting(with: .failed("le-connection-abort-by-local")) }
        if isConnected { tearDown(reason: .local) }
        gatt.removeObjects()
        guard let object, let core else { return }
        core.connection.unexport(object.path)
        self.object = nil
    }

    /// Forgets the object without signalling (the tree is gone with bluetoothd).
    func dropObjectSilently() {
        expiry = nil
        advertising = nil
        if case .connecting(let invocation, _) = linkState {
            _ = invocation.fail(BlueZError.failed("le-connection-abort-by-local").dbusError)
        }
        gatt.removeObjects()
        linkState = .disconnected
        if let pairing { _ = pairing.invocation.fail(BlueZError.failed("Operation aborted").dbusError) }
        pairing = nil
        object = nil
    }

    func set(_ name: String, _ value: DBusValue) {
        do {
            try object?.setProperty(name, of: BlueZInterface.device, to: value)
        } catch {
            core?.report("could not set \(name) of \(peripheral.address): \(error)")
        }
    }

    func invalidate(_ name: String) {
        _ = try? object?.invalidateProperty(name, of: BlueZInterface.device)
    }

    // MARK: Advertising

    /// Starts or stops advertising ticks as the adapter's discovery and the device's state require.
    func updateAdvertising() {
        let should = adapter.isDiscovering && isInRange && !isConnected
        if should, advertising == nil, let loop = core?.loop {
            advertising = loop.every(peripheral.advertisingInterval) { [weak self] in self?.advertise() }
            advertise()
        } else if !should {
            advertising = nil
        }
    }

    /// One advertisement, as the adapter receives it while discovering.
    func advertise() {
        guard adapter.isDiscovering, isInRange, !isConnected else { return }
        let pattern: [Int16] = [0, 1, 0, -1]
        let offset = pattern[advertisementCount % pattern.count] * peripheral.rssiVariation
        advertisementCount += 1
        let rssi = peripheral.rssi.addingReportingOverflow(offset).partialValue
        let merged = adapter.mergedFilter
        guard merged.matches(peripheral, rssi: rssi) else { return }
        let isNew = object == nil
        ensureObject(seenAt: rssi)
        guard let object else { return }
        let thresholdApplies = !adapter.anyClientHasFilter
        if isNew || signalledRSSI == nil || !thresholdApplies
            || abs(Int(rssi) - Int(signalledRSSI ?? rssi)) >= 8
        {
            if signalledRSSI != rssi, !isNew { set("RSSI", .int16(rssi)) }
            signalledRSSI = rssi
        }
        let fields = AdvertisedFields(name: peripheral.name, txPower: peripheral.txPower)
        // Each advertisement of an unchanged advertiser would set the same values again: a no-op on the bus,
        // but work on the loop every interval for every device in range.
        if !isNew, fields != advertisedFields {
            // The advertised name takes over again from one read over GAP while connected.
            if let name = fields.name { setName(name) }
            if let txPower = fields.txPower { set("TxPower", .int16(txPower)) }
            set("AdvertisingFlags", .bytes([0x06]))
        }
        advertisedFields = fields
        if merged.duplicateData, !isNew {
            var changed: [String: DBusValue] = [:]
            if !peripheral.manufacturerData.isEmpty { changed["ManufacturerData"] = peripheral.manufacturerDataValue }
            if !peripheral.serviceData.isEmpty { changed["ServiceData"] = peripheral.serviceDataValue }
            if !changed.isEmpty {
                _ = try? object.emitSignal(
                    .propertiesChanged,
                    arguments: [.string(BlueZInterface.device), .stringVariantDictionary(changed), .array(.string, [])])
            }
        }
        restartExpiry()
    }

    /// Makes the next advertisement put its name and TX power on the object again.
    func forgetAdvertisedFields() {
        advertisedFields = nil
    }

    /// What an advertisement puts on the device object besides the RSSI.
    struct AdvertisedFields: Equatable {
        var name: String?
        var txPower: Int16?
    }

    /// (Re)starts the timer that removes the device when it is not seen again in time.
    func restartExpiry() {
        guard let core, !isStored, !isConnected else {
            expiry = nil
            return
        }
        expiry = core.loop.after(core.configuration.deviceTimeout) { [weak self] in
            guard let self, !self.isConnected, !self.isStored, self.object != nil else { return }
            self.removeObject()
        }
    }

    /// Discovery stopped: bluetoothd forgets the RSSI and TX power it saw.
    func discoveryStopped() {
        advertising = nil
        signalledRSSI = nil
        advertisedFields = nil
        invalidate("RSSI")
        invalidate("TxPower")
    }

    /// The advertisement data changed (scripting).
    func advertisementChanged(previous: SimulatedPeripheral) {
        advertisedFields = nil
        guard object != nil else { return }
        if previous.name != peripheral.name, let name = peripheral.name {
            set("Name", .string(name))
            if object?.property("Alias", of: BlueZInterface.device) == .string(previous.defaultAlias) {
                set("Alias", .string(peripheral.defaultAlias))
            }
        }
        if previous.manufacturerData != peripheral.manufacturerData {
            if peripheral.manufacturerData.isEmpty {
                invalidate("ManufacturerData")
            } else {
                set("ManufacturerData", peripheral.manufacturerDataValue)
            }
        }
        if previous.serviceData != peripheral.serviceData {
            if peripheral.serviceData.isEmpty {
                invalidate("ServiceData")
            } else {
                set("ServiceData", peripheral.serviceDataValue)
            }
        }
        if previous.advertisedServices != peripheral.advertisedServices, !isConnected {
            set("UUIDs", .array(.string, peripheral.advertisedServices.map { .string($0.uuidString) }))
        }
    }
}
