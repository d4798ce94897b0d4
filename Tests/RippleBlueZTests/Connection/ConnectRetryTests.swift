import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleTestKit
import RippleTestSupport
import Testing

/// The transient failures of `Connect()` that bluetoothd at normal priority produces are retried by the
/// central itself, within the connect timeout (``ConnectRetryPolicy``).
@Suite(.timeLimit(Patience.test)) struct ConnectRetryTests {
    private let lab: BluetoothAddress = Lab.address

    static let transientFailures: [BlueZError] = [
        .failed("le-connection-abort-by-local"), .failed("Input/output error"), .inProgress,
    ]

    @Test(arguments: transientFailures)
    func eachTransientFailureIsRetried(failure: BlueZError) async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            _ = try await fixture.central.startDiscovery().first { $0.address == Lab.address }.values.first { _ in true
            }
            try await fixture.simulator.inject(.fail(failure), on: .connect, of: lab, times: 2)
            let events = TestSubscriber(fixture.central.connectionEvents.setFailureType(to: BluetoothError.self))
            let peripheral = try await fixture.central.connectPeripheral(to: Lab.address, timeout: .seconds(10))
            #expect(peripheral.isConnected)
            #expect(try await fixture.simulator.isConnected(lab))
            // One attempt, three calls: the subscriber and the events see only its success.
            #expect(events.values.map(\.name) == ["connecting", "connected", "ready"])
        }
    }

    @Test func aFailureThatIsNotTransientEndsTheAttemptAtOnce() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            _ = try await fixture.central.startDiscovery().first { $0.address == Lab.address }.values.first { _ in true
            }
            try await fixture.simulator.inject(.fail(.failed("le-connection-abort-by-remote")), on: .connect, of: lab)
            do throws(BluetoothError) {
                _ = try await fixture.central.connectPeripheral(to: Lab.address, timeout: .seconds(10))
                Issue.record("connected although Connect() failed")
            } catch {
                #expect(error.kind == .connectionFailed)
                #expect(error.bluezMessage == "le-connection-abort-by-remote")
            }
        }
    }

    @Test func retriesStopAtTheConnectTimeout() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            _ = try await fixture.central.startDiscovery().first { $0.address == Lab.address }.values.first { _ in true
            }
            try await fixture.simulator.inject(
                .fail(.failed("le-connection-abort-by-local")), on: .connect, of: lab, times: nil)
            let events = TestSubscriber(fixture.central.connectionEvents.setFailureType(to: BluetoothError.self))
            let connecting = TestSubscriber(
                fixture.central.connectingPeripherals.map { $0.map(\.address) }.setFailureType(to: BluetoothError.self))
            let clock = ContinuousClock()
            let start = clock.now
            do throws(BluetoothError) {
                _ = try await fixture.central.connectPeripheral(to: Lab.address, timeout: .milliseconds(1_500))
                Issue.record("connected although every Connect() failed")
            } catch {
                let elapsed = clock.now - start
                #expect(error.kind == .timeout)
                #expect(error.bluezName == "org.bluez.Error.Failed")
                #expect(error.bluezMessage == "le-connection-abort-by-local")
                #expect(elapsed >= .milliseconds(1_500))
                // Not retried past it (the bound leaves room for a loaded machine).
                #expect(elapsed < .milliseconds(1_500) + .seconds(5))
            }
            try await connecting.wait(timeout: Patience.step) { $0.values == [[], [Lab.address], []] }
            #expect(events.values.map(\.name) == ["connecting", "failed"])
            #expect(try await fixture.simulator.isConnected(lab) == false)
        }
    }

    /// A reconnection policy's attempts are not retried inside: each failure goes to the policy.
    @Test func aPolicysAttemptsAreNotRetriedInside() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            _ = try await fixture.central.startDiscovery().first { $0.address == Lab.address }.values.first { _ in true
            }
            let policy = ReconnectPolicy(delays: [.milliseconds(20)], maximumAttempts: 2)
            let peripheral = try await fixture.central.connectPeripheral(to: Lab.address, autoReconnect: policy)
            let events = TestSubscriber(fixture.central.connectionEvents.setFailureType(to: BluetoothError.self))
            let listener = TestSubscriber(peripheral.listen(to: CharacteristicReference(Lab.sensor)))
            try await fixture.simulator.waitUntilNotifying(peripheral: lab, characteristic: Lab.sensor)
            try await fixture.simulator.inject(
                .fail(.failed("le-connection-abort-by-local")), on: .connect, of: lab, times: nil)
            try await fixture.simulator.disconnect(peripheral: lab, reason: .remote)
            try await listener.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(listener.failure()?.message.hasPrefix("gave up reconnecting") == true)
            #expect(
                events.values.map(\.name) == ["disconnected", "connecting", "failed", "connecting", "failed"])
        }
    }
}
