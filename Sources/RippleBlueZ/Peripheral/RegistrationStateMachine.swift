/// The registration of one exported object with bluetoothd — the GATT application, or one
/// advertisement — following bluetoothd's lifetime: registered while wanted and bluetoothd runs,
/// registered again when bluetoothd restarts, unregistered when no longer wanted.
///
/// Events come from the user (start, stop), the bus (the owner of `org.bluez` changes), bluetoothd's
/// replies (each tagged with the attempt it answers, so that a late reply to an earlier owner is ignored)
/// and the retry timer. A registration that finds bluetoothd without its adapter yet (it has just
/// started) is tried again, up to ``maximumAttempts`` times.
struct RegistrationStateMachine: Sendable {
    /// Where the registration is.
    enum Phase: Sendable, Hashable {
        /// Not wanted.
        case idle
        /// Wanted; bluetoothd is not running.
        case waiting
        /// `Register…` is under way (attempt `attempt` for the current owner).
        case registering(attempt: Int)
        /// The last attempt found bluetoothd not ready; the retry timer runs.
        case retrying(attempt: Int)
        /// bluetoothd has it.
        case registered
        /// bluetoothd refused it; the stream has failed.
        case failed
    }

    /// What happened.
    enum Event: Sendable {
        /// The first subscriber wants it.
        case start
        /// The last subscriber is gone.
        case stop
        /// `org.bluez` has a new owner (nil: none).
        case ownerChanged(String?)
        /// bluetoothd accepted the attempt with this tag.
        case succeeded(tag: Int)
        /// bluetoothd refused the attempt with this tag; `retryable` when it was not ready yet.
        case failed(tag: Int, BluetoothError, retryable: Bool)
        /// The retry timer fired.
        case retryTimerFired
    }

    /// What to do.
    enum Action: Sendable, Hashable {
        /// Send `Register…` to `owner`, its reply tagged `tag`.
        case register(owner: String, tag: Int)
        /// Send `Unregister…` to `owner` (no answer awaited).
        case unregister(owner: String)
        /// Start the retry timer.
        case scheduleRetry
        /// Publish the state.
        case publish(Phase)
        /// End the stream with the error.
        case fail(BluetoothError)
    }

    /// How many times a registration is tried while bluetoothd is not ready (every ``retryDelay``).
    static let maximumAttempts = 40
    /// The wait between two attempts.
    static let retryDelay: Duration = .milliseconds(250)

    private(set) var phase = Phase.idle
    /// The owner of `org.bluez`, as last known.
    private(set) var owner: String?
    /// The tag of the latest `register` action.
    private(set) var tag = 0

    /// Takes one event and returns what to do, in order.
    ///
    /// - Parameter event: what happened.
    /// - Returns: the actions.
    mutating func handle(_ event: Event) -> [Action] {
        switch (event, phase) {
        case (.start, .idle), (.start, .failed):
            return begin()
        case (.start, _):
            return []

        case (.stop, .registered), (.stop, .registering):
            phase = .idle
            return owner.map { [.unregister(owner: $0)] } ?? []
        case (.stop, _):
            phase = .idle
            return []

        case (.ownerChanged(let newOwner), .idle), (.ownerChanged(let newOwner), .failed):
            owner = newOwner
            return []
        case (.ownerChanged(let newOwner), _):
            guard newOwner != owner else { return [] }
            owner = newOwner
            return begin()

        case (.succeeded(let answered), .registering) where answered == tag:
            phase = .registered
            return [.publish(.registered)]
        case (.succeeded, _):
            return []

        case (.failed(let answered, let error, let retryable), .registering(let attempt)) where answered == tag:
            if retryable, attempt < Self.maximumAttempts {
                phase = .retrying(attempt: attempt)
                return [.scheduleRetry]
            }
            phase = .failed
            return [.fail(error)]
        case (.failed, _):
            return []

        case (.retryTimerFired, .retrying(let attempt)):
            return makeAttempt(attempt + 1)
        case (.retryTimerFired, _):
            return []
        }
    }

    /// Registers with the current owner, or waits for one.
    private mutating func begin() -> [Action] {
        guard owner != nil else {
            phase = .waiting
            return [.publish(.waiting)]
        }
        return [.publish(.registering(attempt: 1))] + makeAttempt(1)
    }

    private mutating func makeAttempt(_ number: Int) -> [Action] {
        guard let owner else {
            phase = .waiting
            return [.publish(.waiting)]
        }
        phase = .registering(attempt: number)
        tag += 1
        return [.register(owner: owner, tag: tag)]
    }
}
