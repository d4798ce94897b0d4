import Ripple
import RippleDBus

extension Central {
    /// Looks at everything that stands between this process and a working Bluetooth adapter and
    /// reports it: is bluetoothd on the bus, may this process talk to it, which adapters there are,
    /// whether the central's adapter is powered, whether a kill switch blocks the radio, which BlueZ
    /// version and features are present. Never throws: what it cannot learn is part of the report.
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
        checks.append(
            .init(
                name: "bluetoothd on the bus", passed: onBus,
                detail: onBus ? "org.bluez has an owner" : "nobody owns org.bluez (\(settled))",
                fix: onBus ? nil : "start it: sudo systemctl start bluetooth (Debian: apt-get install bluez)"))
        let allowed = settled != .notAuthorized
        checks.append(
            .init(
                name: "access to bluetoothd", passed: allowed,
                detail: allowed ? "the bus lets this process call org.bluez" : "the bus policy refuses this process",
                fix: allowed
                    ? nil
                    : "run as root or as a member of the bluetooth group (sudo usermod -aG bluetooth $USER, then log in again)"
            ))
        checks.append(
            .init(
                name: "adapters", passed: !adapters.isEmpty,
                detail: adapters.isEmpty ? "none" : adapters.map(\.description).joined(separator: ", "),
                fix: adapters.isEmpty
                    ? "plug in a Bluetooth adapter, or check the kernel sees one (hciconfig -a, dmesg | grep -i bluetooth)"
                    : nil))
        let blocked = killSwitches.filter { $0.isSoftBlocked || $0.isHardBlocked }
        checks.append(
            .init(
                name: "kill switches", passed: blocked.isEmpty,
                detail: killSwitches.isEmpty
                    ? "none reported" : killSwitches.map(\.description).joined(separator: ", "),
                fix: blocked.isEmpty
                    ? nil
                    : blocked.contains(where: \.isHardBlocked)
                        ? "a hardware switch or the firmware blocks the radio: turn it on"
                        : "sudo rfkill unblock bluetooth"))
        if let adapter {
            checks.append(
                .init(
                    name: "adapter \(adapter.name) powered", passed: adapter.isPowered,
                    detail: adapter.isPowered ? "on" : "off",
                    fix: adapter.isPowered ? nil : "bluetoothctl power on (or set Powered=true on \(adapter.path))"))
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
