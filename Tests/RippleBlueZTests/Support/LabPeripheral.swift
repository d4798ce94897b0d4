import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import Testing

/// A peripheral made for the central's tests: characteristics that notify only when a test says so,
/// so that every test can expect exact sequences.
enum Lab {
    /// The lab peripheral's address: every test that needs one peripheral uses this one.
    static let address: BluetoothAddress = "C0:FF:EE:00:00:0A"
    /// bluetoothd's object path of the lab peripheral on hci0.
    static let devicePath = "/org/bluez/hci0/" + address.bluezPathComponent
    static let service: BluetoothUUID = "5249504c-1ab0-4000-8000-000000000000"
    /// Reads, writes (with and without response) and notifies.
    static let sensor: BluetoothUUID = "5249504c-1ab0-4000-8000-000000000001"
    /// Notifies: the marker a test sends after the notifications it counts (on the bus, signals keep
    /// their order across characteristics).
    static let marker: BluetoothUUID = "5249504c-1ab0-4000-8000-000000000002"
    /// Indicates only: bluetoothd offers no socket for it.
    static let indicator: BluetoothUUID = "5249504c-1ab0-4000-8000-000000000003"
    /// Notifies a numbered stream by itself (10,000 notifications of 20 bytes, as fast as possible).
    static let stream: BluetoothUUID = "5249504c-1ab0-4000-8000-000000000004"
    /// A vendor descriptor of `sensor` that can be read and written.
    static let setting: BluetoothUUID = "5249504c-1ab0-4000-8000-0000000000d1"

    static var peripheral: SimulatedPeripheral {
        SimulatedPeripheral(
            address: address, name: "Ripple Lab", advertisedServices: [service], mtu: 185,
            services: [
                SimulatedService(
                    uuid: service,
                    characteristics: [
                        SimulatedCharacteristic(
                            uuid: sensor, flags: [.read, .write, .writeWithoutResponse, .notify], value: [0],
                            descriptors: [
                                .userDescription("Sensor"),
                                SimulatedDescriptor(uuid: setting, flags: [.read, .write], value: [7, 7]),
                            ]),
                        SimulatedCharacteristic(uuid: marker, flags: [.notify]),
                        SimulatedCharacteristic(uuid: indicator, flags: [.read, .indicate], value: [0]),
                        SimulatedCharacteristic(
                            uuid: stream, flags: [.notify],
                            notificationSource: NotificationSource(count: 10_000, payload: .numbered(size: 20))),
                    ]),
                // Generic Access, which every LE peripheral has and does not advertise: bluetoothd keeps it
                // for itself (no objects) but lists it in the device's UUIDs once the services are resolved,
                // so that resolving changes `UUIDs` as on real devices — and `ServicesResolved` may then come
                // before the GATT objects (bluez issue 1489) in the simulator's shuffled order.
                SimulatedService(
                    uuid: BluetoothUUID(0x1800),
                    characteristics: [
                        SimulatedCharacteristic(
                            uuid: BluetoothUUID(0x2A00), flags: [.read], value: Array("Ripple Lab".utf8))
                    ]),
            ])
    }

    static var world: SimulatedWorld { SimulatedWorld(peripherals: [.init(peripheral)]) }

    /// The lab world whose sensor records what it is written in `log`.
    static func world(loggingWritesTo log: WriteLog) -> SimulatedWorld {
        var logged = peripheral
        logged.services[0].characteristics[0].onWrite = { request throws(BlueZError) in
            log.append(request.value)
            return .accept
        }
        return SimulatedWorld(peripherals: [.init(logged)])
    }
}

/// What a simulated characteristic was written, in order.
final class WriteLog: Sendable {
    private let lock = Lock()
    nonisolated(unsafe) private var stored: [[UInt8]] = []

    var values: [[UInt8]] { lock.withLock { stored } }

    func append(_ value: [UInt8]) {
        lock.withLock { stored.append(value) }
    }
}

extension CentralFixture {
    /// Connects to `address` (a scan first, as a user would) and returns the ready peripheral.
    func connect(_ address: BluetoothAddress = Lab.address, sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> Peripheral
    {
        try await watched("discovering \(address)", sourceLocation: sourceLocation) {
            _ = try await central.startDiscovery().first { $0.address == address }.values.first { _ in true }
        }
        return try await watched("connecting to \(address)", sourceLocation: sourceLocation) {
            // The central's own limit as long as the step's: a loaded run must not fail the connection first.
            try await central.connectPeripheral(to: address, timeout: Patience.step)
        }
    }

    /// Sends `values` from the lab peripheral's `characteristic`, one after the other.
    func notify(
        _ characteristic: BluetoothUUID, _ values: [[UInt8]], peripheral: BluetoothAddress = Lab.address,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try await watched("the simulator's notifications of \(characteristic)", sourceLocation: sourceLocation) {
            for value in values {
                try await simulator.notify(peripheral: peripheral, characteristic: characteristic, value: value)
            }
        }
    }
}
