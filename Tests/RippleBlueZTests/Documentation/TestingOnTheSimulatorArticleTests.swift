// The "Testing on the simulator" article's example test, as the article writes it, run: a sample that
// compiles but fails at run time (it once connected to a peripheral bluetoothd did not know) fails here.
import RippleBlueZ
import RippleBlueZSimulator
import RippleTestSupport
import Testing

@Suite(.timeLimit(Patience.test)) struct TestingOnTheSimulatorArticleTests {
    @Test func readsTheBatteryLevel() async throws {
        let bus = try SimulatedBus()
        var monitor = SimulatedPeripheral.heartRateMonitor()
        monitor.isKnown = true  // stored by bluetoothd from before: connected to by address, without a scan
        let simulator = BlueZSimulator(world: SimulatedWorld(peripherals: [.init(monitor)]), bus: bus.bus)
        try await simulator.start()
        let central = try Central(bus: bus.bus)
        try await central.waitUntilReady()

        let peripheral = try await central.connectPeripheral(to: "C0:FF:EE:00:00:01")
        let level = try await peripheral.readValue(.batteryLevel, as: BatteryLevel.self)
        #expect(level.percent > 0)

        central.close()
        await simulator.stop()
        bus.stop()
    }
}
