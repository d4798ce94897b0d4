import Ripple
import RippleBlueZSimulator
import RippleDBus
import RippleLoop
import RippleTestKit
import RippleTestSupport
import Testing

@testable import RippleBlueZ

/// A simulator with three adapters on a private bus, a Ripple ``PeripheralManager`` serving `services` on
/// hci1 and a Ripple ``Central`` on hci0, for one test.
final class PeripheralFixture: TestFixture {
    /// hci1's address: the peripheral as the centrals see it.
    static let peripheralAddress: BluetoothAddress = "00:1A:7D:DA:71:14"
    /// hci0's address: the first central as the peripheral sees it.
    static let centralAddress: BluetoothAddress = "00:1A:7D:DA:71:13"
    static let world = SimulatedWorld(adapters: [
        SimulatedAdapter(name: "hci0", address: "00:1A:7D:DA:71:13"),
        SimulatedAdapter(name: "hci1", address: "00:1A:7D:DA:71:14"),
        SimulatedAdapter(name: "hci2", address: "00:1A:7D:DA:71:15"),
    ])

    let bus: SimulatedBus
    let simulator: BlueZSimulator
    let thread: EventLoopThread
    let peripheralThread: EventLoopThread
    let manager: PeripheralManager
    let central: Central

    init(
        services: [LocalService], notificationTransport: NotificationTransport = .automatic,
        busQueueLimit: Int = PeripheralManager.defaultBusQueueLimit
    ) async throws {
        bus = try SimulatedBus()
        simulator = BlueZSimulator(
            world: Self.world, bus: bus.bus, configuration: .init(connectTimeout: .milliseconds(300)))
        try await simulator.start()
        thread = try EventLoopThread(name: "central-test")
        peripheralThread = try EventLoopThread(name: "peripheral-test")
        manager = try PeripheralManager(
            bus: bus.bus, adapter: "hci1", loop: peripheralThread.loop, notificationTransport: notificationTransport,
            busQueueLimit: busQueueLimit, services: services)
        central = try Central(bus: bus.bus, adapter: "hci0", loop: thread.loop)
        try await central.waitUntilReady()
    }

    /// Registers the application and advertises `advertisement`; returns once both are in place (the
    /// returned subscribers keep them so).
    func serve(
        _ advertisement: Advertisement = Advertisement(localName: "Ripple")
    ) async throws -> (
        registration: TestSubscriber<RegistrationState, BluetoothError>,
        advertising: TestSubscriber<AdvertisingState, BluetoothError>
    ) {
        let registration = TestSubscriber(manager.register())
        try await registration.wait(timeout: Patience.step) { $0.values.last == .registered || $0.completion != nil }
        let advertising = TestSubscriber(manager.advertise(advertisement))
        try await advertising.wait(timeout: Patience.step) { $0.values.last == .advertising || $0.completion != nil }
        return (registration, advertising)
    }

    /// Discovers the peripheral from `central` and connects to it.
    func connect(from central: Central? = nil) async throws -> Peripheral {
        let central = central ?? self.central
        _ = try await central.startDiscovery().first { $0.address == Self.peripheralAddress }.values.first { _ in true }
        return try await central.connectPeripheral(to: Self.peripheralAddress)
    }

    /// A second central, on hci2.
    func anotherCentral() async throws -> Central {
        let central = try Central(bus: bus.bus, adapter: "hci2", loop: thread.loop)
        try await central.waitUntilReady()
        return central
    }

    /// Stops everything.
    ///
    /// - Parameter sourceLocation: Unused: stopping finds no problems to record.
    func stop(sourceLocation _: SourceLocation = #_sourceLocation) async {
        central.close()
        manager.close()
        await simulator.stop()
        thread.stop()
        peripheralThread.stop()
        bus.stop()
    }
}
