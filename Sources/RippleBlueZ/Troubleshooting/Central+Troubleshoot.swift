import Ripple
import RippleDBus

extension Central {
    /// Looks at everything that stands between this process and a working Bluetooth adapter and
    /// reports it: is bluetoothd on the bus, may this process talk to it, which adapters there are,
    /// whether the central's adapter is powered, whether a kill switch blocks the radio, which BlueZ
    /// version and features are present. Never throws: what it cannot learn is part of the report.
    ///
    /// - Returns: the report: each check, passed, failed or skipped, with its fix.
    public func troubleshoot() async -> BluetoothReport {
        await troubleshoot(killSwitchDirectory: "/sys/class/rfkill")
    }

    /// ``troubleshoot()`` with the kill switches read from `killSwitchDirectory` (for tests).
    func troubleshoot(killSwitchDirectory: String) async -> BluetoothReport {
        let settled = await core.state.first { $0 != .unknown }.values.first { _ in true } ?? .unknown
        let adapters = self.adapters
        let killSwitches = RFKillSwitch.bluetoothSwitches(in: killSwitchDirectory)
        let (interfaces, modalias) = core.mirror.withLock { mirror -> ([String], String?) in
            var names = Set<String>()
            var modalias: String?
            for (path, objectInterfaces) in mirror.tree.objects {
                for name in objectInterfaces.keys where name.hasPrefix("org.bluez.") { names.insert(name) }
                if modalias == nil, let value = objectInterfaces[BlueZ.adapter]?["Modalias"]?.string,
                    path.description.hasPrefix("/org/bluez/")
                {
                    modalias = value
                }
            }
            return (names.sorted(), modalias)
        }
        var checks: [BluetoothReport.Check] = []
        let onBus = settled != .bluetoothUnavailable && settled != .unknown
        let busCheck = "bluetoothd on the bus"
        checks.append(
            .init(
                name: busCheck, passed: onBus,
                detail: onBus ? "org.bluez has an owner" : "nobody owns org.bluez (\(settled))",
                fix: "start it: sudo systemctl start bluetooth (Debian: apt-get install bluez)"))
        let accessCheck = "access to bluetoothd"
        let allowed = settled != .unauthorized
        if onBus {
            checks.append(
                .init(
                    name: accessCheck, passed: allowed,
                    detail: allowed
                        ? "the bus lets this process call org.bluez" : "the bus policy refuses this process",
                    fix:
                        "run as root or as a member of the bluetooth group (sudo usermod -aG bluetooth $USER, then log in again)"
                ))
        } else {
            checks.append(.init(skipped: accessCheck, because: busCheck))
        }
        let adaptersCheck = "adapters"
        if onBus, allowed {
            checks.append(
                .init(
                    name: adaptersCheck, passed: !adapters.isEmpty,
                    detail: adapters.isEmpty ? "none" : adapters.map(\.description).joined(separator: ", "),
                    fix:
                        "plug in a Bluetooth adapter, or check the kernel sees one (hciconfig -a, dmesg | grep -i bluetooth)"
                ))
        } else {
            checks.append(.init(skipped: adaptersCheck, because: onBus ? accessCheck : busCheck))
        }
        // The kill switches are read from the kernel: they depend on nothing above.
        let killSwitchesCheck = "kill switches"
        let blocked = killSwitches.filter { $0.isSoftBlocked || $0.isHardBlocked }
        checks.append(
            .init(
                name: killSwitchesCheck, passed: blocked.isEmpty,
                detail: killSwitches.isEmpty
                    ? "none reported" : killSwitches.map(\.description).joined(separator: ", "),
                fix: blocked.contains(where: \.isHardBlocked)
                    ? "a hardware switch or the firmware blocks the radio: turn it on"
                    : "sudo rfkill unblock bluetooth"))
        if let adapter, onBus, allowed {
            let poweredCheck = "adapter \(adapter.name) powered"
            if blocked.isEmpty {
                checks.append(
                    .init(
                        name: poweredCheck, passed: adapter.isPowered, detail: adapter.isPowered ? "on" : "off",
                        fix: "bluetoothctl power on (or set Powered=true on \(adapter.path))"))
            } else {
                // A blocked radio cannot be powered on: the kill switch is the cause to fix first.
                checks.append(.init(skipped: poweredCheck, because: killSwitchesCheck))
            }
        }
        return BluetoothReport(
            checks: checks, adapters: adapters, killSwitches: killSwitches,
            bluezVersion: modalias.flatMap(Self.bluezVersion(fromModalias:)), interfaces: interfaces)
    }

    /// "5.66" from bluetoothd's default device ID `usb:v1D6Bp0246d0542` (the version's major and minor in
    /// the last four hex digits); nil for another vendor's ID.
    static func bluezVersion(fromModalias modalias: String) -> String? {
        guard modalias.lowercased().hasPrefix("usb:v1d6bp0246d"), let digits = modalias.split(separator: "d").last,
            digits.count == 4, let bytes = try? Hex.bytes(String(digits)), bytes.count == 2
        else { return nil }
        return "\(bytes[0]).\(bytes[1])"
    }
}
