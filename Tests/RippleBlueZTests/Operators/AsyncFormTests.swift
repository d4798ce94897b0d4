import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleDBus
import RippleTestSupport
import Synchronization
import Testing

/// The async forms by their one rule: each takes its publisher's `timeout:` and fails as the publisher
/// does when it passes; a cancelled task ends each one with ``BluetoothError/Kind/cancelled``; and the
/// publisher forms keep their names inside async code (`.sink` on them compiles and runs there).
@Suite(.timeLimit(Patience.test)) struct AsyncFormTests {
    private let sensor = CharacteristicReference(Lab.sensor)

    /// The lab peripheral, known to bluetoothd from before (no scan needed to connect), with a Device
    /// Information service.
    private static var world: SimulatedWorld {
        var stored = Lab.peripheral
        stored.isKnown = true
        stored.services.append(
            .deviceInformation(SimulatedDeviceInformation(manufacturerName: "Ripple Labs", modelNumber: "RL-1")))
        return SimulatedWorld(peripherals: [.init(stored)])
    }

    /// What `operation` ends with (nil for a value), run in a task that is cancelled at once when
    /// `cancelled`.
    private func outcome<T: Sendable>(cancelled: Bool = false, _ operation: @escaping @Sendable () async throws -> T)
        async -> BluetoothError.Kind?
    {
        let task = Task { () async throws -> T in try await operation() }
        if cancelled { task.cancel() }
        do {
            _ = try await task.value
            return nil
        } catch let error as BluetoothError {
            return error.kind
        } catch {
            Issue.record("not a BluetoothError: \(error)")
            return nil
        }
    }

    @Test func eachAsyncFormTakesItsPublishersTimeout() async throws {
        try await withFixture(CentralFixture(world: Self.world)) { fixture in
            let central = fixture.central
            try await fixture.simulator.inject(.delay(.seconds(1)), on: .connect, of: Lab.address)
            #expect(
                await outcome { try await central.connectPeripheral(to: Lab.address, timeout: .milliseconds(300)) }
                    == .timeout)
            let known = try #require(central.peripheral(address: Lab.address))
            try await fixture.simulator.inject(.delay(.seconds(1)), on: .connect, of: Lab.address)
            #expect(
                await outcome { try await central.connectPeripheral(to: known, timeout: .milliseconds(300)) }
                    == .timeout)
            let discovery = PeripheralDiscovery(peripheral: known)
            try await fixture.simulator.inject(.delay(.seconds(1)), on: .connect, of: Lab.address)
            #expect(
                await outcome { try await central.connectPeripheral(to: discovery, timeout: .milliseconds(300)) }
                    == .timeout)
            let peripheral = try await central.connectPeripheral(to: Lab.address)
            let sensor = self.sensor
            try await fixture.simulator.inject(.delay(.seconds(1)), on: .read(Lab.sensor), of: Lab.address)
            #expect(await outcome { try await peripheral.readValue(sensor, timeout: .milliseconds(200)) } == .timeout)
            try await fixture.simulator.inject(.delay(.seconds(1)), on: .read(Lab.sensor), of: Lab.address)
            #expect(
                await outcome { try await peripheral.readValue(sensor, as: UInt8.self, timeout: .milliseconds(200)) }
                    == .timeout)
            try await fixture.simulator.inject(.delay(.seconds(1)), on: .write(Lab.sensor), of: Lab.address)
            #expect(
                await outcome { try await peripheral.writeValue([1], to: sensor, timeout: .milliseconds(200)) }
                    == .timeout)
            try await fixture.simulator.inject(.delay(.seconds(1)), on: .write(Lab.sensor), of: Lab.address)
            #expect(
                await outcome { try await peripheral.writeValue(UInt8(1), to: sensor, timeout: .milliseconds(200)) }
                    == .timeout)
            // The sensor never answers a write with a notification.
            #expect(
                await outcome {
                    try await peripheral.writeValueAndListen(
                        [1], to: sensor, reply: sensor, timeout: .milliseconds(200))
                } == .timeout)
            #expect(
                await outcome {
                    try await peripheral.writeValueAndListen(
                        UInt8(1), to: sensor, reply: sensor, timeout: .milliseconds(200))
                } == .timeout)
            #expect(
                await outcome {
                    try await peripheral.writeValueAndListen(
                        UInt8(1), to: sensor, reply: sensor, as: UInt8.self, timeout: .milliseconds(200))
                } == .timeout)
            let setting = Lab.setting
            try await fixture.simulator.inject(.delay(.seconds(1)), on: .readDescriptor(setting), of: Lab.address)
            #expect(
                await outcome {
                    try await peripheral.readValue(descriptor: setting, of: sensor, timeout: .milliseconds(200))
                } == .timeout)
            try await fixture.simulator.inject(.delay(.seconds(1)), on: .readDescriptor(setting), of: Lab.address)
            #expect(
                await outcome {
                    try await peripheral.readValue(
                        descriptor: setting, of: sensor, as: UInt16.self, timeout: .milliseconds(200))
                } == .timeout)
            try await fixture.simulator.inject(.delay(.seconds(1)), on: .writeDescriptor(setting), of: Lab.address)
            #expect(
                await outcome {
                    try await peripheral.writeValue(
                        [1, 2], toDescriptor: setting, of: sensor, timeout: .milliseconds(200))
                } == .timeout)
            try await fixture.simulator.inject(
                .delay(.seconds(1)), on: .read(.manufacturerNameString), of: Lab.address)
            #expect(
                await outcome { try await peripheral.readDeviceInformation(timeout: .milliseconds(200)) } == .timeout)
            try await fixture.simulator.inject(.delay(.seconds(1)), on: .pair, of: Lab.address)
            #expect(await outcome { try await peripheral.pairPeripheral(timeout: .milliseconds(200)) } == .timeout)
            // bluetoothd answers Disconnect() late: the caller stops waiting, the link still goes down.
            try await fixture.simulator.inject(
                .delay(.seconds(1)), on: .disconnect, of: Lab.address, times: 2)
            #expect(
                await outcome { try await peripheral.disconnectPeripheral(timeout: .milliseconds(200)) } == .timeout)
            #expect(
                await outcome { try await central.disconnectPeripheral(peripheral, timeout: .milliseconds(200)) }
                    == .timeout)
        }
    }

    /// A time limit past what `Duration.components` can split — `.seconds(Int64.max)`, to which the
    /// central adds a margin for bluetoothd's own answer — is no limit: each form completes, nothing traps.
    @Test func aTimeoutBeyondInt64SecondsIsNoLimit() async throws {
        try await withFixture(CentralFixture(world: Self.world)) { fixture in
            let central = fixture.central
            let forever = Duration.seconds(Int64.max)
            let peripheral = try await central.connectPeripheral(to: Lab.address, timeout: forever)
            #expect(peripheral.isConnected)
            try await peripheral.writeValue([7], to: sensor, timeout: forever)
            #expect(try await peripheral.readValue(sensor, timeout: forever) == [7])
            try await peripheral.disconnectPeripheral(timeout: forever)
            #expect(!peripheral.isConnected)
        }
    }

    @Test func cancellingTheTaskEndsEachAsyncFormWithCancelled() async throws {
        try await withFixture(CentralFixture(world: Self.world)) { fixture in
            let central = fixture.central
            try await fixture.simulator.inject(
                .delay(.seconds(1)), on: .connect, of: Lab.address, times: 3)
            #expect(
                await outcome(cancelled: true) { try await central.connectPeripheral(to: Lab.address) } == .cancelled)
            let known = try #require(central.peripheral(address: Lab.address))
            #expect(await outcome(cancelled: true) { try await central.connectPeripheral(to: known) } == .cancelled)
            let discovery = PeripheralDiscovery(peripheral: known)
            #expect(await outcome(cancelled: true) { try await central.connectPeripheral(to: discovery) } == .cancelled)
            try await fixture.simulator.clearFaults(of: Lab.address)
            let peripheral = try await central.connectPeripheral(to: Lab.address)
            let sensor = self.sensor
            try await fixture.simulator.inject(.delay(.seconds(1)), on: .read(Lab.sensor), of: Lab.address)
            #expect(await outcome(cancelled: true) { try await peripheral.readValue(sensor) } == .cancelled)
            #expect(
                await outcome(cancelled: true) { try await peripheral.readValue(sensor, as: UInt8.self) } == .cancelled)
            try await fixture.simulator.inject(.delay(.seconds(1)), on: .write(Lab.sensor), of: Lab.address)
            #expect(await outcome(cancelled: true) { try await peripheral.writeValue([1], to: sensor) } == .cancelled)
            #expect(
                await outcome(cancelled: true) { try await peripheral.writeValue(UInt8(1), to: sensor) } == .cancelled)
            #expect(
                await outcome(cancelled: true) {
                    try await peripheral.writeValueAndListen([1], to: sensor, reply: sensor)
                } == .cancelled)
            #expect(
                await outcome(cancelled: true) {
                    try await peripheral.writeValueAndListen(UInt8(1), to: sensor, reply: sensor, as: UInt8.self)
                } == .cancelled)
            let setting = Lab.setting
            try await fixture.simulator.inject(.delay(.seconds(1)), on: .readDescriptor(setting), of: Lab.address)
            #expect(
                await outcome(cancelled: true) { try await peripheral.readValue(descriptor: setting, of: sensor) }
                    == .cancelled)
            #expect(
                await outcome(cancelled: true) {
                    try await peripheral.readValue(descriptor: setting, of: sensor, as: UInt16.self)
                } == .cancelled)
            try await fixture.simulator.inject(.delay(.seconds(1)), on: .writeDescriptor(setting), of: Lab.address)
            #expect(
                await outcome(cancelled: true) {
                    try await peripheral.writeValue([1, 2], toDescriptor: setting, of: sensor)
                } == .cancelled)
            try await fixture.simulator.inject(
                .delay(.seconds(1)), on: .read(.manufacturerNameString), of: Lab.address)
            #expect(await outcome(cancelled: true) { try await peripheral.readDeviceInformation() } == .cancelled)
            try await fixture.simulator.inject(.delay(.seconds(1)), on: .pair, of: Lab.address)
            #expect(await outcome(cancelled: true) { try await peripheral.pairPeripheral() } == .cancelled)
            try await fixture.simulator.inject(.delay(.seconds(1)), on: .disconnect, of: Lab.address)
            #expect(await outcome(cancelled: true) { try await peripheral.disconnectPeripheral() } == .cancelled)
            #expect(await outcome(cancelled: true) { try await central.disconnectPeripheral(peripheral) } == .cancelled)
        }
    }

    /// Each publisher form, subscribed with `.sink` inside an async function: the async forms' names
    /// never hide them (before the rule, `peripheral.disconnect().sink` did not compile here).
    @Test func thePublisherFormsSinkInsideAsyncCode() async throws {
        try await withFixture(CentralFixture(world: Self.world)) { fixture in
            let central = fixture.central
            let sensor = self.sensor
            let (ends, sunk) = AsyncStream<String>.makeStream()
            let subscriptions = Mutex<[AnyCancellable]>([])
            /// What a subscription named `name` yields when it completes.
            func ending(_ name: String) -> @Sendable (Subscribers.Completion<BluetoothError>) -> Void {
                { completion in sunk.yield(completion == .finished ? name : "\(name) failed: \(completion)") }
            }
            func keep(_ subscription: AnyCancellable) { subscriptions.withLock { $0.append(subscription) } }
            var ended = ends.makeAsyncIterator()

            keep(central.connect(to: Lab.address).sink(receiveCompletion: ending("connect"), receiveValue: { _ in }))
            #expect(await ended.next() == "connect")
            let peripheral = try await central.connectPeripheral(to: Lab.address)
            keep(peripheral.read(sensor).sink(receiveCompletion: ending("read"), receiveValue: { _ in }))
            #expect(await ended.next() == "read")
            keep(
                peripheral.read(sensor, as: UInt8.self).sink(
                    receiveCompletion: ending("read as"), receiveValue: { _ in })
            )
            #expect(await ended.next() == "read as")
            keep(peripheral.write([1], to: sensor).sink(receiveCompletion: ending("write"), receiveValue: { _ in }))
            #expect(await ended.next() == "write")
            keep(
                peripheral.write(UInt8(2), to: sensor).sink(
                    receiveCompletion: ending("write value"), receiveValue: { _ in }))
            #expect(await ended.next() == "write value")
            keep(
                peripheral.read(descriptor: Lab.setting, of: sensor).sink(
                    receiveCompletion: ending("read descriptor"), receiveValue: { _ in }))
            #expect(await ended.next() == "read descriptor")
            keep(
                peripheral.read(descriptor: Lab.setting, of: sensor, as: UInt16.self).sink(
                    receiveCompletion: ending("read descriptor as"), receiveValue: { _ in }))
            #expect(await ended.next() == "read descriptor as")
            keep(
                peripheral.write([1, 2], toDescriptor: Lab.setting, of: sensor).sink(
                    receiveCompletion: ending("write descriptor"), receiveValue: { _ in }))
            #expect(await ended.next() == "write descriptor")
            keep(
                peripheral.deviceInformation().sink(
                    receiveCompletion: ending("device information"), receiveValue: { _ in }))
            #expect(await ended.next() == "device information")
            keep(peripheral.pair().sink(receiveCompletion: ending("pair"), receiveValue: { _ in }))
            #expect(await ended.next() == "pair")
            keep(peripheral.disconnect().sink(receiveCompletion: ending("disconnect"), receiveValue: { _ in }))
            #expect(await ended.next() == "disconnect")
            keep(
                central.connect(to: peripheral).sink(
                    receiveCompletion: ending("connect peripheral"), receiveValue: { _ in }))
            #expect(await ended.next() == "connect peripheral")
            keep(
                central.disconnect(peripheral).sink(
                    receiveCompletion: ending("central disconnect"), receiveValue: { _ in }))
            #expect(await ended.next() == "central disconnect")
            keep(
                central.connect(to: PeripheralDiscovery(peripheral: peripheral)).sink(
                    receiveCompletion: ending("connect discovery"), receiveValue: { _ in }))
            #expect(await ended.next() == "connect discovery")
            // The sensor answers no write with a notification: each writeAndListen form ends by its timeout.
            let limit = Duration.milliseconds(100)
            keep(
                peripheral.writeAndListen([1], to: sensor, reply: sensor, timeout: limit).sink(
                    receiveCompletion: ending("write and listen"), receiveValue: { _ in }))
            #expect(await ended.next()?.hasPrefix("write and listen failed") == true)
            keep(
                peripheral.writeAndListen(UInt8(1), to: sensor, reply: sensor, timeout: limit).sink(
                    receiveCompletion: ending("write value and listen"), receiveValue: { _ in }))
            #expect(await ended.next()?.hasPrefix("write value and listen failed") == true)
            keep(
                peripheral.writeAndListen([1], to: sensor, reply: sensor, as: UInt8.self, timeout: limit).sink(
                    receiveCompletion: ending("write and listen as"), receiveValue: { _ in }))
            #expect(await ended.next()?.hasPrefix("write and listen as failed") == true)
            keep(
                peripheral.writeAndListen(UInt8(1), to: sensor, reply: sensor, as: UInt8.self, timeout: limit).sink(
                    receiveCompletion: ending("write value and listen as"), receiveValue: { _ in }))
            #expect(await ended.next()?.hasPrefix("write value and listen as failed") == true)
            keep(
                peripheral.disconnect(timeout: .seconds(5)).sink(
                    receiveCompletion: ending("disconnect with timeout"), receiveValue: { _ in }))
            #expect(await ended.next() == "disconnect with timeout")
            _ = try await central.connectPeripheral(to: peripheral)
            keep(
                central.disconnect(peripheral, timeout: .seconds(5)).sink(
                    receiveCompletion: ending("central disconnect with timeout"), receiveValue: { _ in }))
            #expect(await ended.next() == "central disconnect with timeout")
            subscriptions.withLock { $0.removeAll() }
        }
    }

    /// The peripheral manager's form, `disconnectCentral`: its timeout, its cancellation, and its
    /// publisher's `.sink` in async code.
    ///
    /// The simulator's objects for connected centrals answer `Disconnect()` at once and take no faults, so
    /// the late answer comes from an object that takes one: the manager is handed its central with the
    /// `device` path of the central's own view of the manager's adapter, whose `Disconnect()` is delayed.
    /// The manager's call is the same `Device1.Disconnect` to bluetoothd either way.
    @Test func theManagersFormTakesItsTimeoutEndsCancelledAndSinks() async throws {
        let service: BluetoothUUID = "5249504c-a51c-4000-8000-000000000000"
        let level: BluetoothUUID = "5249504c-a51c-4000-8000-000000000001"
        let services = [LocalService(service) { LocalCharacteristic(level, properties: [.read], value: [1]) }]
        try await withFixture(PeripheralFixture(services: services)) { fixture in
            let manager = fixture.manager
            let served = try await fixture.serve()
            let peripheral = try await fixture.connect()
            let centrals = manager.connectedCentrals.first { !$0.isEmpty }
            let connected = try #require(try await centrals.values.first { _ in true }?.first)
            #expect(connected.address == PeripheralFixture.centralAddress)

            let (ends, sunk) = AsyncStream<String>.makeStream()
            let subscription = manager.disconnect(connected).sink(
                receiveCompletion: { completion in
                    sunk.yield(completion == .finished ? "disconnect" : "disconnect failed: \(completion)")
                },
                receiveValue: { _ in })
            var ended = ends.makeAsyncIterator()
            #expect(await ended.next() == "disconnect")
            subscription.cancel()

            var delayed = connected
            delayed.device = try DBusObjectPath(
                "/org/bluez/hci0/" + PeripheralFixture.peripheralAddress.bluezPathComponent)
            let late = delayed
            try await fixture.simulator.inject(
                .delay(.seconds(1)), on: .disconnect, of: PeripheralFixture.peripheralAddress, times: 2)
            #expect(
                await outcome { try await manager.disconnectCentral(late, timeout: .milliseconds(200)) } == .timeout)
            #expect(await outcome(cancelled: true) { try await manager.disconnectCentral(late) } == .cancelled)
            withExtendedLifetime((served, peripheral)) {}
        }
    }
}
