import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleTestSupport
import Synchronization
import Testing

@Suite(.timeLimit(Patience.test)) struct PairingTests {
    /// The lab world, its peripheral pairing by `method`.
    private static func world(pairing method: PairingMethod) -> SimulatedWorld {
        var peripheral = Lab.peripheral
        peripheral.pairingMethod = method
        return SimulatedWorld(peripherals: [.init(peripheral)])
    }

    @Test func aPasskeyConfirmedByTheHandlerPairs() async throws {
        try await withFixture(CentralFixture(world: Self.world(pairing: .confirmPasskey(123_456)))) { fixture in
            let peripheral = try await fixture.connect()
            let asked = Mutex<[PairingRequest]>([])
            let agent = try await fixture.central.registerPairingAgent { request in
                asked.withLock { $0.append(request) }
                return .accept
            }
            try await peripheral.pair().values.first { _ in true }
            #expect(asked.withLock { $0 } == [PairingRequest(address: Lab.address, kind: .confirmPasskey(123_456))])
            #expect(peripheral.isPaired)
            agent.unregister()
        }
    }

    @Test func aRejectedPasskeyFailsThePairing() async throws {
        try await withFixture(CentralFixture(world: Self.world(pairing: .confirmPasskey(654_321)))) { fixture in
            let peripheral = try await fixture.connect()
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
        }
    }

    @Test func anEnteredPasskeyMustMatch() async throws {
        try await withFixture(CentralFixture(world: Self.world(pairing: .enterPasskey(2_468)))) { fixture in
            let peripheral = try await fixture.connect()
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
        }
    }
}
