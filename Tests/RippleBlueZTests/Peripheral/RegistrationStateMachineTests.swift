import Testing

@testable import RippleBlueZ

/// Every event in every phase of the registration machine.
struct RegistrationStateMachineTests {
    private let refusal = BluetoothError(.failed, "refused")

    /// A machine in `phase` with bluetoothd owned by ":1.1" (or none, for `.waiting`), and the tag of its
    /// latest attempt.
    private func machine(in phase: RegistrationStateMachine.Phase) -> RegistrationStateMachine {
        var machine = RegistrationStateMachine()
        switch phase {
        case .idle:
            _ = machine.handle(.ownerChanged(":1.1"))
        case .waiting:
            _ = machine.handle(.start)
        case .registering:
            _ = machine.handle(.ownerChanged(":1.1"))
            _ = machine.handle(.start)
        case .retrying:
            _ = machine.handle(.ownerChanged(":1.1"))
            _ = machine.handle(.start)
            _ = machine.handle(.failed(tag: 1, refusal, retryable: true))
        case .registered:
            _ = machine.handle(.ownerChanged(":1.1"))
            _ = machine.handle(.start)
            _ = machine.handle(.succeeded(tag: 1))
        case .failed:
            _ = machine.handle(.ownerChanged(":1.1"))
            _ = machine.handle(.start)
            _ = machine.handle(.failed(tag: 1, refusal, retryable: false))
        }
        #expect(machine.phase == phase)
        return machine
    }

    @Test func startRegistersWithTheOwnerOrWaitsForOne() {
        var waiting = RegistrationStateMachine()
        #expect(waiting.handle(.start) == [.publish(.waiting)])
        #expect(
            waiting.handle(.ownerChanged(":1.1")) == [
                .publish(.registering(attempt: 1)), .register(owner: ":1.1", tag: 1),
            ])
        var idle = machine(in: .idle)
        #expect(idle.handle(.start) == [.publish(.registering(attempt: 1)), .register(owner: ":1.1", tag: 1)])
        var failed = machine(in: .failed)
        #expect(failed.handle(.start) == [.publish(.registering(attempt: 1)), .register(owner: ":1.1", tag: 2)])
        for phase in [
            RegistrationStateMachine.Phase.waiting, .registering(attempt: 1), .retrying(attempt: 1), .registered,
        ] {
            var started = machine(in: phase)
            #expect(started.handle(.start) == [])
            #expect(started.phase == phase)
        }
    }

    @Test func stopUnregistersWhatBluetoothdMayHave() {
        var registered = machine(in: .registered)
        #expect(registered.handle(.stop) == [.unregister(owner: ":1.1")])
        #expect(registered.phase == .idle)
        var registering = machine(in: .registering(attempt: 1))
        #expect(registering.handle(.stop) == [.unregister(owner: ":1.1")])
        // A late success is then ignored.
        #expect(registering.handle(.succeeded(tag: 1)) == [])
        for phase in [RegistrationStateMachine.Phase.idle, .waiting, .retrying(attempt: 1), .failed] {
            var other = machine(in: phase)
            #expect(other.handle(.stop) == [])
            #expect(other.phase == .idle)
        }
    }

    @Test func aNewOwnerIsRegisteredWithAgainAndNoOwnerWaits() {
        for phase in [RegistrationStateMachine.Phase.registering(attempt: 1), .retrying(attempt: 1), .registered] {
            var gone = machine(in: phase)
            #expect(gone.handle(.ownerChanged(nil)) == [.publish(.waiting)])
            #expect(gone.phase == .waiting)
            #expect(
                gone.handle(.ownerChanged(":1.9")) == [
                    .publish(.registering(attempt: 1)), .register(owner: ":1.9", tag: 2),
                ])
            var replaced = machine(in: phase)
            #expect(
                replaced.handle(.ownerChanged(":1.9")) == [
                    .publish(.registering(attempt: 1)), .register(owner: ":1.9", tag: 2),
                ])
            var same = machine(in: phase)
            #expect(same.handle(.ownerChanged(":1.1")) == [])
        }
        for phase in [RegistrationStateMachine.Phase.idle, .failed] {
            var quiet = machine(in: phase)
            #expect(quiet.handle(.ownerChanged(":1.9")) == [])
            #expect(quiet.owner == ":1.9")
            #expect(quiet.phase == phase)
        }
        var waiting = machine(in: .waiting)
        #expect(waiting.handle(.ownerChanged(nil)) == [])
    }

    @Test func repliesCountOnlyForTheLatestAttempt() {
        var registering = machine(in: .registering(attempt: 1))
        _ = registering.handle(.ownerChanged(":1.9"))
        // The reply to the attempt made with the earlier owner.
        #expect(registering.handle(.failed(tag: 1, refusal, retryable: false)) == [])
        #expect(registering.handle(.succeeded(tag: 1)) == [])
        #expect(registering.handle(.succeeded(tag: 2)) == [.publish(.registered)])
        #expect(registering.phase == .registered)
        for phase in [RegistrationStateMachine.Phase.idle, .waiting, .retrying(attempt: 1), .registered, .failed] {
            var other = machine(in: phase)
            #expect(other.handle(.succeeded(tag: 1)) == [])
            #expect(other.handle(.failed(tag: 1, refusal, retryable: false)) == [])
            #expect(other.phase == phase)
        }
    }

    @Test func aRefusalFailsAndNotReadyIsTriedAgainAFewTimes() {
        var refused = machine(in: .registering(attempt: 1))
        #expect(refused.handle(.failed(tag: 1, refusal, retryable: false)) == [.fail(refusal)])
        #expect(refused.phase == .failed)
        var retried = machine(in: .registering(attempt: 1))
        for attempt in 1..<RegistrationStateMachine.maximumAttempts {
            #expect(retried.handle(.failed(tag: attempt, refusal, retryable: true)) == [.scheduleRetry])
            #expect(retried.handle(.retryTimerFired) == [.register(owner: ":1.1", tag: attempt + 1)])
        }
        #expect(
            retried.handle(.failed(tag: RegistrationStateMachine.maximumAttempts, refusal, retryable: true)) == [
                .fail(refusal)
            ])
        for phase in [RegistrationStateMachine.Phase.idle, .waiting, .registering(attempt: 1), .registered, .failed] {
            var other = machine(in: phase)
            #expect(other.handle(.retryTimerFired) == [])
            #expect(other.phase == phase)
        }
    }
}
