import CDBus
import Ripple
import RippleLoop

// The C callbacks libdbus calls on the loop thread, from inside the libdbus calls a `ConnectionCore` makes.
// Their `data` is the core, unretained (it outlives its libdbus connection).

private func core(_ data: UnsafeMutableRawPointer?) -> ConnectionCore? {
    data.map { Unmanaged<ConnectionCore>.fromOpaque($0).takeUnretainedValue() }
}

let addWatchCallback: DBusAddWatchFunction = { watch, data in
    guard let watch, let core = core(data) else { return 0 }
    core.update(watch)
    return 1
}

let removeWatchCallback: DBusRemoveWatchFunction = { watch, data in
    guard let watch, let core = core(data) else { return }
    core.remove(watch)
}

let toggleWatchCallback: DBusWatchToggledFunction = { watch, data in
    guard let watch, let core = core(data) else { return }
    core.update(watch)
}

let releaseWatchRecordCallback: DBusFreeFunction = { data in
    guard let data else { return }
    let record = Unmanaged<WatchRecord>.fromOpaque(data).takeRetainedValue()
    record.stop()
    record.watch = nil
}

let addTimeoutCallback: DBusAddTimeoutFunction = { timeout, data in
    guard let timeout, let core = core(data) else { return 0 }
    core.update(timeout: timeout)
    return 1
}

let removeTimeoutCallback: DBusRemoveTimeoutFunction = { timeout, data in
    guard let timeout, let core = core(data) else { return }
    core.remove(timeout: timeout)
}

let toggleTimeoutCallback: DBusTimeoutToggledFunction = { timeout, data in
    guard let timeout, let core = core(data) else { return }
    core.update(timeout: timeout)
}

let releaseTimeoutRecordCallback: DBusFreeFunction = { data in
    guard let data else { return }
    let record = Unmanaged<TimeoutRecord>.fromOpaque(data).takeRetainedValue()
    record.timer = nil
    record.timeout = nil
}

// The next two come once per message libdbus reads: they borrow the core without retaining it (the core
// has weak references, so a retain and a release would each take the slow, side-table path).

let dispatchStatusCallback: DBusDispatchStatusFunction = { _, status, data in
    // Raw values: `==` on the imported C enum goes through an unspecialised protocol witness.
    guard status.rawValue == DBUS_DISPATCH_DATA_REMAINS.rawValue, let data else { return }
    Unmanaged<ConnectionCore>.fromOpaque(data)._withUnsafeGuaranteedRef { $0.dispatchStatusChanged() }
}

let wakeupMainCallback: DBusWakeupMainFunction = { data in
    guard let data else { return }
    Unmanaged<ConnectionCore>.fromOpaque(data)._withUnsafeGuaranteedRef { $0.wakeupRequested() }
}

/// What the core keeps for one libdbus watch, and the subscriber of the loop's poll of its descriptor:
/// each readiness goes straight to the core (no sink and closures in between: the path runs once per read
/// of the bus socket). Loop thread only.
final class WatchRecord: Subscriber, Sendable {
    typealias Input = EventLoop.PollEvents
    typealias Failure = EventLoopError

    /// The libdbus watch; nil once libdbus freed it.
    nonisolated(unsafe) var watch: OpaquePointer?
    /// The events being polled for.
    nonisolated(unsafe) var events: EventLoop.PollEvents = []
    /// The poll subscription, while watching.
    nonisolated(unsafe) private var subscription: (any Subscription)? {
        didSet { hasSubscription = subscription != nil }
    }
    /// Whether ``subscription`` is set, read per readiness without copying the existential out.
    nonisolated(unsafe) private var hasSubscription = false
    /// The core the readiness goes to, unretained: it outlives every record's deliveries. The core stops
    /// each record (its poll subscription ends, so no readiness reaches it) when libdbus removes or frees the
    /// watch, which happens at the latest in the core's `release`, before the core goes. A weak reference
    /// cost a side-table load, retain and release of the core per readiness; an `unowned(unsafe)` one was
    /// still retained and released around the call (the slow, side-table path too): the core is borrowed
    /// through `Unmanaged` instead.
    private let core: Unmanaged<ConnectionCore>

    init(watch: OpaquePointer, core: ConnectionCore) {
        self.watch = watch
        self.core = Unmanaged.passUnretained(core)
    }

    var isWatching: Bool { hasSubscription && watch != nil }

    /// Stops polling (the subscription ends; a later ``ConnectionCore/update(_:)`` subscribes again).
    func stop() {
        let ending = subscription
        subscription = nil
        ending?.cancel()
    }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        subscription.request(.unlimited)
    }

    func receive(_ ready: EventLoop.PollEvents) -> Subscribers.Demand {
        var flags: UInt32 = 0
        if ready.contains(.readable) { flags |= DBUS_WATCH_READABLE.rawValue }
        if ready.contains(.writable) { flags |= DBUS_WATCH_WRITABLE.rawValue }
        if ready.contains(.disconnect) { flags |= DBUS_WATCH_HANGUP.rawValue }
        core._withUnsafeGuaranteedRef { $0.handle(self, flags: flags) }
        return .none
    }

    func receive(completion: Subscribers.Completion<EventLoopError>) {
        // The descriptor could not be watched (or the loop stopped): tell libdbus it hung up.
        guard case .failure = completion, watch != nil else { return }
        core._withUnsafeGuaranteedRef { $0.handle(self, flags: DBUS_WATCH_HANGUP.rawValue) }
    }
}

/// What the core keeps for one libdbus timeout: the loop timer that fires it.
final class TimeoutRecord: Sendable {
    /// The libdbus timeout; nil once libdbus freed it.
    nonisolated(unsafe) var timeout: OpaquePointer?
    /// The repeating loop timer, while armed; cancelled when replaced or released.
    nonisolated(unsafe) var timer: (any Cancellable)? {
        didSet { oldValue?.cancel() }
    }

    init(timeout: OpaquePointer) {
        self.timeout = timeout
    }
}

/// A method call waiting for its reply.
final class PendingCall: Sendable {
    private nonisolated(unsafe) let completion: (Result<DBusMessage, DBusError>) -> Void
    /// The timeout's timer, if the call has a timeout.
    nonisolated(unsafe) var timer: AnyCancellable?

    init(completion: @escaping (Result<DBusMessage, DBusError>) -> Void) {
        self.completion = completion
    }

    func complete(with result: Result<DBusMessage, DBusError>) {
        timer?.cancel()
        timer = nil
        completion(result)
    }
}

/// Handles method calls addressed to a connection: the exported objects of the server side.
protocol MethodCallHandling: AnyObject, Sendable {
    /// Handles `call` (on the loop thread), replying through `core`; returns false when no exported
    /// object takes it (the core then answers `org.freedesktop.DBus.Error.UnknownObject`).
    func handle(_ call: DBusMessage, core: ConnectionCore) -> Bool
}
