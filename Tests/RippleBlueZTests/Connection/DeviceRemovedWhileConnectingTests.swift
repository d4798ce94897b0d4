import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleDBus
import RippleTestKit
import RippleTestSupport
import Testing

/// bluetoothd removes a device while its `Connect()` is in flight (another program removed it, say). In
/// the simulator's shuffled order, as bluetoothd 5.66's `device_free`, the pending `Connect()` is dropped
/// unanswered while `InterfacesRemoved` goes out; in its in-order mode it is answered
/// "le-connection-abort-by-local" (a failure the central retries) just before. Either way the attempt ends
/// at once with a typed error, the central's machines refuse nothing, and the central goes on: the
/// peripheral, heard again, connects and is read.
@Suite(.timeLimit(Patience.test)) struct DeviceRemovedWhileConnectingTests {
    /// nil: the order `RIPPLE_SIM_ORDER` names (in order by default); else that shuffled seed.
    @Test(arguments: [nil, 1, 2, 3, 4] as [UInt64?])
    func theAttemptEndsWithATypedErrorAndTheCentralGoesOn(seed: UInt64?) async throws {
        let fixture = try await CentralFixture(world: Lab.world, signalOrder: seed.map { .shuffled(seed: $0) })
        try await withFixture(fixture) { fixture in
            let central = fixture.central
            _ = try await watched("discovering the lab") {
                try await central.startDiscovery().first { $0.address == Lab.address }.values.first { _ in true }
            }
            // Its next Connect() stays in flight for a minute.
            try await fixture.simulator.inject(.delay(.seconds(60)), on: .connect, of: Lab.address)
            let connecting = TestSubscriber(
                central.connectingPeripherals.map { $0.map(\.address) }.setFailureType(to: BluetoothError.self))
            let attempt = TestSubscriber(central.connect(to: Lab.address, timeout: .seconds(60)))
            try await connecting.wait(timeout: Patience.step) { $0.values.last == [Lab.address] }
            // Connect() has gone out on the central's connection; RemoveDevice follows it on the same
            // connection, so bluetoothd has Connect() pending when it removes the device.
            await fixture.settle()
            _ = try await watched("RemoveDevice") {
                try await central.connection.call(
                    destination: "org.bluez", path: try DBusObjectPath("/org/bluez/hci0"),
                    interface: "org.bluez.Adapter1", member: "RemoveDevice",
                    arguments: [.objectPath(try DBusObjectPath(Lab.devicePath))]
                ).values.first { _ in true }
            }
            try await attempt.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(attempt.values.isEmpty)
            let error = attempt.failure()
            #expect(error?.kind == .connectionFailed)
            #expect(error?.message == "the peripheral was removed before its services were resolved")
            try await connecting.wait(timeout: Patience.step) { $0.values.last == [] }
            #expect(await fixture.violations().isEmpty)
            // The central goes on: the peripheral, still advertising, is heard again and connects.
            let peripheral = try await fixture.connect()
            #expect(peripheral.isConnected)
            #expect(try await peripheral.readValue(CharacteristicReference(Lab.sensor)) == [0])
            #expect(await fixture.violations().isEmpty)
            connecting.cancel()
        }
    }
}
