import Ripple
import RippleDBus
import RippleLoop
import Synchronization

/// A characteristic that notifies by itself while a client has notifications on: `payload(n)` for
/// n = 0, 1, 2, … set as its `Value` (which bluetoothd sends as notifications), `perTick` of them every
/// `interval`, up to `count` (nil: no end), from each `StartNotify`; on the loop thread.
final class NotifyingCharacteristic: Sendable {
    private struct State {
        var object: DBusExportedObject?
        var timer: AnyCancellable?
        var sent = 0
    }

    private let loop: EventLoop
    private let interval: Duration
    private let perTick: Int
    private let count: Int?
    private let payload: @Sendable (Int) -> [UInt8]
    private let state = Mutex(State())

    init(
        loop: EventLoop, interval: Duration, perTick: Int = 1, count: Int?,
        payload: @escaping @Sendable (Int) -> [UInt8]
    ) {
        self.loop = loop
        self.interval = interval
        self.perTick = perTick
        self.count = count
        self.payload = payload
    }

    /// The exported object whose `Value` carries the notifications.
    func attach(_ object: DBusExportedObject) {
        state.withLock { $0.object = object }
    }

    /// Starts notifying from sequence number 0 (a running stream starts again).
    func start() {
        stop()
        let timer = AnyCancellable(loop.every(interval) { [weak self] in self?.tick() })
        let object = state.withLock { state -> DBusExportedObject? in
            state.sent = 0
            state.timer = timer
            return state.object
        }
        try? object?.setProperty("Notifying", of: PeripheralApplication.gattCharacteristic, to: .boolean(true))
    }

    /// Stops notifying.
    func stop() {
        let (timer, object) = state.withLock { state in
            defer { state.timer = nil }
            return (state.timer, state.object)
        }
        guard let timer else { return }
        timer.cancel()
        try? object?.setProperty("Notifying", of: PeripheralApplication.gattCharacteristic, to: .boolean(false))
    }

    private func tick() {
        for _ in 0..<perTick {
            let next = state.withLock { state -> (Int, DBusExportedObject)? in
                guard let object = state.object, state.timer != nil else { return nil }
                if let count, state.sent >= count { return nil }
                defer { state.sent += 1 }
                return (state.sent, object)
            }
            guard let (sequence, object) = next else {
                if let count, state.withLock({ $0.sent >= count }) { stop() }
                return
            }
            try? object.setProperty(
                "Value", of: PeripheralApplication.gattCharacteristic, to: .bytes(payload(sequence)))
        }
    }
}
