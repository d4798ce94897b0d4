import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(1))) struct PairingTests {
    private func fixture(_ method: PairingMethod) async throws -> (CentralFixture, Peripheral) {
        var peripheral = Lab.peripheral
        peripheral.pairingMethod = method
        let fixture = try await CentralFixture(world: SimulatedWorld(peripherals: [.init(peripheral)]))
        return (fixture, try await fixture.connect())
    }

    @Test func aPasskeyConfirmedByTheHandlerPairs() async throws {
        let (fixture, peripheral) = try await fixture(.confirmPasskey(123_456))
        let asked = Mutex<[PairingRequest]>([])
        let agent = try await fixture.central.registerPairingAgent { request in
            asked.withLock { $0.append(request) }
            return .accept
        }
        try await peripheral.pair().values.first { _ in true }
        #expect(asked.withLock { $0 } == [PairingRequest(address: Lab.address, kind: .confirmPasskey(123_456))])
        #expect(peripheral.isPaired)
        agent.unregister()
        await fixture.stop()
    }

    @Test func aRejectedPasskeyFailsThePairing() async throws {
        let (fixture, peripheral) = try await fixture(.confirmPasskey(654_321))
        let agent = try await fixture.central.registerPairingAgent { _ in .reject }
        do {
            try await peripheral.pair().values.first { _ in true }
            Issue.record("the pairing succeeded")
        } catch {
            let error = try #require(error as? BluetoothError)
            #expect(error.kind == .insufficientAuthentication)
            #expect(error.bluezName == "org.bluez.Error.AuthenticationRejected")
        }
        #expect(!peripheral.isPaired)
        agent.unregister()
        await fixture.stop()
    }

    @Test func anEnteredPasskeyMustMatch() async throws {
        let (fixture, peripheral) = try await fixture(.enterPasskey(2_468))
        let typed = Mutex<UInt32>(1_111)
        let agent = try await fixture.central.registerPairingAgent(capability: .keyboardOnly) { request in
            request.kind == .enterPasskey ? .passkey(typed.withLock { $0 }) : .reject
        }
        do {
            try await peripheral.pair().values.first { _ in true }
            Issue.record("a wrong passkey paired")
        } catch {
            #expect((error as? BluetoothError)?.bluezName == "org.bluez.Error.AuthenticationFailed")
        }
        typed.withLock { $0 = 2_468 }
        try await peripheral.pair().values.first { _ in true }
        #expect(peripheral.isPaired)
        // Paired already: succeeds at once.
        try await peripheral.pair().values.first { _ in true }
        agent.unregister()
        await fixture.stop()
    }
}
