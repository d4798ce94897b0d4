import RippleBlueZSimulator

/// A few lines telling what a world holds, for `--check` and the start-up banner.
public enum WorldSummary {
    /// A line per adapter, and under it a line per peripheral: address, name, RSSI, services.
    public static func lines(_ world: SimulatedWorld) -> [String] {
        var lines: [String] = []
        for adapter in world.adapters {
            lines.append("adapter \(adapter.name) \(adapter.address)\(adapter.isPowered ? "" : " (powered off)")")
            for placement in world.peripherals where placement.adapter == adapter.name {
                let peripheral = placement.peripheral
                let name = peripheral.name.map { "\"\($0)\"" } ?? "(no name)"
                let services = peripheral.services.map { service in
                    service.uuid.shortForm.map { hex4($0) } ?? service.uuid.uuidString
                }
                lines.append(
                    "  \(peripheral.address) \(name) rssi \(peripheral.rssi) dBm, services: "
                        + (services.isEmpty ? "none" : services.joined(separator: ", ")))
            }
        }
        return lines
    }

    private static func hex4(_ value: UInt16) -> String {
        "0x" + Hex.digits(of: UInt64(value), count: 4, uppercase: false)
    }
}
