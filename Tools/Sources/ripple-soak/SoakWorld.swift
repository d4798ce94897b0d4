import RippleBlueZ
import RippleBlueZSimulator

/// The simulated world of the soak: two peripherals that flood a numbered characteristic (one listened
/// to over the socket path, one over D-Bus signals), both known to bluetoothd so that they survive its
/// restarts, and three advertisers for the scans.
enum SoakWorld {
    static let service: BluetoothUUID = "5249504c-50ac-4000-8000-000000000000"
    static let flood: BluetoothUUID = "5249504c-50ac-4000-8000-000000000001"
    static let socketAddress: BluetoothAddress = "C0:FF:EE:50:AC:01"
    static let busAddress: BluetoothAddress = "C0:FF:EE:50:AC:02"

    /// The flood characteristic, as the central names it.
    static var floodReference: CharacteristicReference {
        CharacteristicReference(BluetoothUUID(uuidString: flood.description) ?? BluetoothUUID(0))
    }

    /// The world, with the two floods at `socketRate` and `busRate` notifications per second.
    static func world(socketRate: Double, busRate: Double) -> SimulatedWorld {
        SimulatedWorld(
            peripherals: [
                .init(flooding(socketAddress, name: "Soak socket", rate: socketRate)),
                .init(flooding(busAddress, name: "Soak bus", rate: busRate)),
            ]
                + (1...3).map { index in
                    .init(
                        SimulatedPeripheral(
                            address: BluetoothAddress(rawValue: 0xC0FF_EE50_AD00 + UInt64(index)),
                            name: "Soak beacon \(index)",
                            rssi: Int16(-50 - 10 * index), rssiVariation: 4))
                })
    }

    private static func flooding(_ address: BluetoothAddress, name: String, rate: Double) -> SimulatedPeripheral {
        SimulatedPeripheral(
            address: address, name: name, advertisedServices: [service], isKnown: true,
            services: [
                SimulatedService(
                    uuid: service,
                    characteristics: [
                        SimulatedCharacteristic(
                            uuid: flood, flags: [.read, .notify], value: [0, 0, 0, 0],
                            notificationSource: NotificationSource(rate: rate, payload: .numbered(size: 20)))
                    ]),
                .battery(level: 80),
            ])
    }
}
