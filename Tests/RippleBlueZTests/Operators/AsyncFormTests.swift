import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleTestSupport
import Synchronization
import Testing

/// The async forms by their one rule: each takes its publisher's `timeout:` and fails as the publisher
/// does when it passes; a cancelled task ends each one with ``BluetoothError/Kind/cancelled``; and the
/// publisher forms keep their names inside async code (`.sink` on them compiles and runs there).
@Suite(.timeLimit(Patience.test)) struct AsyncFormTests {
    private let sensor = CharacteristicReference(Lab.sensor)

    /// The lab peripheral, known to bluetoothd from before (no scan needed to connect).
    private static var world: SimulatedWorld {
        var stored = Lab.peripheral
        stored.isKnown = true
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
                        UInt8(1), to: sensor, reply: sensor, as: UInt8.self, timeout: .milliseconds(200))
                } == .timeout)
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
            try await fixture.simulator.inject(.delay(.seconds(1)), on: .disconnect, of: Lab.address)
            #expect(await outcome(cancelled: true) { try await peripheral.disconnectPeripheral() } == .cancelled)
            #expect(await outcome(cancelled: true) { try await central.disconnectPeripheral(peripheral) } == .cancelled)
        }
    }

    /// Each publisher form, subscribed with `sink` inside an async function: the async forms' names
    /// never hide them (before the rule, `peripheral.disconnect().sink` did not compile here).
    @Test func thePublisherFormsSinkInsideAsyncCode() async throws {
        try await withFixture(CentralFixture(world: Self.world)) { fixture in
            let central = fixture.central
            let sensor = self.sensor
            let (ends, sunk) = AsyncStream<String>.makeStream()
            let subscriptions = Mutex<[AnyCancellable]>([])
            func sinking<P: Publisher>(_ name: String, _ publisher: P) where P.Failure == BluetoothError {
                let subscription = publisher.sink(
                    receiveCompletion: { completion in
                        sunk.yield(completion == .finished ? name : "\(name) failed: \(completion)")
                    },
                    receiveValue: { _ in })
                subscriptions.withLock { $0.append(subscription) }
            }
            var ended = ends.makeAsyncIterator()

            sinking("connect", central.connect(to: Lab.address))
            #expect(await ended.next() == "connect")
            let peripheral = try await central.connectPeripheral(to: Lab.address)
            sinking("read", peripheral.read(sensor))
            #expect(await ended.next() == "read")
            sinking("read as", peripheral.read(sensor, as: UInt8.self))
            #expect(await ended.next() == "read as")
            sinking("write", peripheral.write([1], to: sensor))
            #expect(await ended.next() == "write")
            sinking("write value", peripheral.write(UInt8(2), to: sensor))
            #expect(await ended.next() == "write value")
            sinking("disconnect", peripheral.disconnect())
            #expect(await ended.next() == "disconnect")
            sinking("connect peripheral", central.connect(to: peripheral))
            #expect(await ended.next() == "connect peripheral")
            sinking("central disconnect", central.disconnect(peripheral))
            #expect(await ended.next() == "central disconnect")
            sinking("connect discovery", central.connect(to: PeripheralDiscovery(peripheral: peripheral)))
            #expect(await ended.next() == "connect discovery")
            // The sensor answers no write with a notification: each writeAndListen form ends by its timeout.
            let limit = Duration.milliseconds(100)
            sinking("write and listen", peripheral.writeAndListen([1], to: sensor, reply: sensor, timeout: limit))
            #expect(await ended.next()?.hasPrefix("write and listen failed") == true)
            sinking(
                "write value and listen", peripheral.writeAndListen(UInt8(1), to: sensor, reply: sensor, timeout: limit)
            )
            #expect(await ended.next()?.hasPrefix("write value and listen failed") == true)
            sinking(
                "write and listen as",
                peripheral.writeAndListen([1], to: sensor, reply: sensor, as: UInt8.self, timeout: limit))
            #expect(await ended.next()?.hasPrefix("write and listen as failed") == true)
            sinking(
                "write value and listen as",
                peripheral.writeAndListen(UInt8(1), to: sensor, reply: sensor, as: UInt8.self, timeout: limit))
            #expect(await ended.next()?.hasPrefix("write value and listen as failed") == true)
            sinking("disconnect with timeout", peripheral.disconnect(timeout: .seconds(5)))
            #expect(await ended.next() == "disconnect with timeout")
            _ = try await central.connectPeripheral(to: peripheral)
            sinking("central disconnect with timeout", central.disconnect(peripheral, timeout: .seconds(5)))
            #expect(await ended.next() == "central disconnect with timeout")
            subscriptions.withLock { $0.removeAll() }
        }
    }
}
