import RippleDBus

/// What bluetoothd 5.66's own GATT plugins do with a connected peripheral's database once its services
/// are resolved, in their order: the GAP plugin takes the Device Name (0x2A00) and Appearance (0x2A01)
/// of the Generic Access service (which it claims, so that service is never exported: see
/// `GATTServer.claimedByBluetoothd`); the Device
/// Information plugin turns the PnP ID (0x2A50) into `Modalias`; the battery plugin puts
/// `org.bluez.Battery1` on the device for a Battery Level (0x2A19) that can notify.
extension SimulatedDevice {
    /// Runs the plugins on a database just resolved.
    func runBluetoothdPlugins() {
        // The name read over GAP replaces the advertised one until the next advertisement puts it back.
        forgetAdvertisedFields()
        if let name = gatt.value(of: BluetoothUUID(0x2A00)).flatMap({ String(validating: $0, as: UTF8.self) }),
            !name.isEmpty
        {
            setName(name)
        }
        if let appearance = gatt.value(of: BluetoothUUID(0x2A01)), appearance.count == 2 {
            set("Appearance", .uint16(UInt16(appearance[0]) | UInt16(appearance[1]) << 8))
        }
        if let pnp = gatt.value(of: BluetoothUUID(0x2A50)), let modalias = Self.modalias(pnpID: pnp) {
            set("Modalias", .string(modalias))
        }
        addBatteryInterface()
    }

    /// `Name` becomes `name`; `Alias` follows unless a client set it.
    func setName(_ name: String) {
        guard let object else { return }
        let current = object.property("Name", of: BlueZInterface.device)?.string ?? peripheral.defaultAlias
        let aliasFollows = object.property("Alias", of: BlueZInterface.device)?.string == current
        set("Name", .string(name))
        if aliasFollows { set("Alias", .string(name)) }
    }

    /// bluetoothd's modalias for a PnP ID: vendor ID source 1 (Bluetooth SIG) `bluetooth:vVVVVpPPPPdDDDD`,
    /// 2 (USB) `usb:v…`; nil for another source or fewer than seven bytes.
    static func modalias(pnpID bytes: [UInt8]) -> String? {
        guard bytes.count >= 7 else { return nil }
        let field = { (index: Int) in UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8 }
        let prefix: String
        switch bytes[0] {
        case 1: prefix = "bluetooth"
        case 2: prefix = "usb"
        default: return nil
        }
        let hex = { (value: UInt16) in Hex.digits(of: UInt64(value), count: 4, uppercase: true) }
        return "\(prefix):v\(hex(field(1)))p\(hex(field(3)))d\(hex(field(5)))"
    }

    /// The battery plugin: `Battery1` with `Percentage` the level read, then each level notified.
    /// (bluetoothd 5.66 enables the level's notifications itself, as a client of its own; the simulator
    /// does not count that as a session.)
    func addBatteryInterface() {
        guard let object, let percentage = gatt.batteryLevel else { return }
        let battery = DBusInterface(
            name: BlueZInterface.battery,
            properties: [DBusProperty(name: "Percentage", initialValue: .byte(percentage))])
        do {
            try object.addInterface(battery)
        } catch {
            core?.report("could not add Battery1 to \(peripheral.address): \(error)")
            return
        }
        gatt.batteryLevelNotified = { [weak self] level in
            _ = try? self?.object?.setProperty("Percentage", of: BlueZInterface.battery, to: .byte(level))
        }
    }

    /// The link ends: `Battery1` goes, first thing.
    func removeBatteryInterface() {
        gatt.batteryLevelNotified = { _ in }
        _ = object?.removeInterface(named: BlueZInterface.battery)
    }
}
