import Ripple
import RippleDBus
import RippleTestSupport
import Synchronization
import Testing

@testable import RippleBlueZ
@testable import RippleBlueZSimulator

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

    // MARK: Cancelling

    /// A subscriber that cancels the pairing cancels it in bluetoothd (`CancelPairing()`): the device stays
    /// unpaired, and a later pairing succeeds.
    @Test func cancellingThePairSubscriptionCancelsThePairing() async throws {
        try await withFixture(CentralFixture(world: Self.world(pairing: .confirmPasskey(123_456)))) { fixture in
            let peripheral = try await fixture.connect()
            let agent = HesitantAgent()
            let registered = try await fixture.central.registerPairingAgent(handler: agent.handler)
            var questions = agent.questions.makeAsyncIterator()
            let subscription = peripheral.pair().sink(
                receiveCompletion: { Issue.record("the cancelled pairing completed: \($0)") },
                receiveValue: { _ in Issue.record("the cancelled pairing paired") })
            #expect(await questions.next() == PairingRequest(address: Lab.address, kind: .confirmPasskey(123_456)))
            subscription.cancel()
            try await Self.expectCancelledThenPaired(peripheral, agent, fixture)
            registered.unregister()
        }
    }

    @Test func cancellingThePairingTaskCancelsThePairing() async throws {
        try await withFixture(CentralFixture(world: Self.world(pairing: .confirmPasskey(123_456)))) { fixture in
            let peripheral = try await fixture.connect()
            let agent = HesitantAgent()
            let registered = try await fixture.central.registerPairingAgent(handler: agent.handler)
            var questions = agent.questions.makeAsyncIterator()
            let pairing = Task { try await peripheral.pairPeripheral() }
            #expect(await questions.next() == PairingRequest(address: Lab.address, kind: .confirmPasskey(123_456)))
            pairing.cancel()
            do {
                try await pairing.value
                Issue.record("the cancelled pairing paired")
            } catch {
                #expect((error as? BluetoothError)?.kind == .cancelled)
            }
            try await Self.expectCancelledThenPaired(peripheral, agent, fixture)
            registered.unregister()
        }
    }

    @Test func aPairingThatTimesOutIsCancelled() async throws {
        try await withFixture(CentralFixture(world: Self.world(pairing: .confirmPasskey(123_456)))) { fixture in
            let peripheral = try await fixture.connect()
            let agent = HesitantAgent()
            let registered = try await fixture.central.registerPairingAgent(handler: agent.handler)
            do {
                try await peripheral.pairPeripheral(timeout: .milliseconds(300))
                Issue.record("the pairing paired with no answer")
            } catch {
                #expect((error as? BluetoothError)?.kind == .timeout)
            }
            var questions = agent.questions.makeAsyncIterator()
            #expect(await questions.next() == PairingRequest(address: Lab.address, kind: .confirmPasskey(123_456)))
            try await Self.expectCancelledThenPaired(peripheral, agent, fixture)
            registered.unregister()
        }
    }

    /// After a cancelled pairing: bluetoothd saw one `CancelPairing()` and has the device unpaired; once the
    /// agent answers, a new pairing succeeds.
    private static func expectCancelledThenPaired(
        _ peripheral: Peripheral, _ agent: HesitantAgent, _ fixture: CentralFixture,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        // Asked on the central's connection, after the CancelPairing() it sent.
        #expect(try await pairedInBluetoothd(fixture) == false, sourceLocation: sourceLocation)
        #expect(
            try await fixture.simulator.withDevice(Lab.address) { $0.cancelPairingCalls } == 1,
            sourceLocation: sourceLocation)
        #expect(!peripheral.isPaired, sourceLocation: sourceLocation)
        agent.startAnswering()
        try await peripheral.pairPeripheral()
        #expect(peripheral.isPaired, sourceLocation: sourceLocation)
        #expect(try await pairedInBluetoothd(fixture), sourceLocation: sourceLocation)
        // The async form's `first()` cancels the pairing's subscription on its value: a pairing that succeeded
        // is not cancelled (on real bluetoothd that could drop the link).
        #expect(
            try await fixture.simulator.withDevice(Lab.address) { $0.cancelPairingCalls } == 1,
            "no CancelPairing() after a pairing that succeeded", sourceLocation: sourceLocation)
    }

    /// The device's `Paired` as bluetoothd has it, asked on the central's connection: the answer comes
    /// after whatever the central sent before.
    private static func pairedInBluetoothd(_ fixture: CentralFixture) async throws -> Bool {
        for try await reply in fixture.central.core.connection.call(
            destination: "org.bluez", path: try DBusObjectPath(Lab.devicePath),
            interface: "org.freedesktop.DBus.Properties", member: "Get",
            arguments: [.string("org.bluez.Device1"), .string("Paired")]
        ).values {
            return reply.body.first?.unwrappingVariants == .boolean(true)
        }
        throw BluetoothError(.failed, "no answer to Get(Paired)")
    }
}

/// A pairing handler that leaves bluetoothd's questions unanswered until ``startAnswering()``, then
/// accepts; the questions held meanwhile are rejected then (their pairing is gone).
private final class HesitantAgent: Sendable {
    private struct State {
        var answering = false
        var held: [CheckedContinuation<Void, Never>] = []
    }

    /// The questions asked, in order.
    let questions: AsyncStream<PairingRequest>
    private let asked: AsyncStream<PairingRequest>.Continuation
    private let state = LockedBox(State())

    init() {
        (questions, asked) = AsyncStream.makeStream()
    }

    var handler: PairingHandler {
        { [self] request in
            asked.yield(request)
            if state.withLock({ $0.answering }) { return .accept }
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Bool in
                    if state.answering { return true }
                    state.held.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
            return .reject
        }
    }

    /// Accepts from now on; rejects the questions held.
    func startAnswering() {
        let held = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.answering = true
            defer { state.held = [] }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }
}
