import Ripple
import RippleDBus
import Synchronization

/// The current owner of `org.bluez` as a connection sees it: the only caller the objects this process
/// exports for bluetoothd (the pairing agent, the GATT application, advertisements) answer.
final class BluetoothdOwner: Sendable {
    /// The error every other caller gets.
    static let accessDenied = DBusError.remote(
        name: "org.freedesktop.DBus.Error.AccessDenied",
        message: "only bluetoothd (the owner of org.bluez) may call this object")

    private struct State {
        var owner: String?
        var watch: AnyCancellable?
    }

    private let state = LockedState(State())

    /// Follows the owner of `org.bluez` on `connection`; `changed` gets each new owner (nil: none).
    init(connection: DBusConnection, changed: @escaping @Sendable (String?) -> Void = { _ in }) {
        let watch = connection.nameOwner(of: BlueZ.service).sink(
            receiveCompletion: { [weak self] _ in
                self?.state.withLock { $0.owner = nil }
                changed(nil)
            },
            receiveValue: { [weak self] owner in
                self?.state.withLock { $0.owner = owner }
                changed(owner)
            })
        state.withLock { $0.watch = watch }
    }

    /// The owner now (nil before the bus answered, and when there is none).
    var owner: String? { state.withLock { $0.owner } }

    /// Whether `call` comes from the owner of `org.bluez`.
    func isBluetoothd(_ call: DBusMethodCall) -> Bool {
        let owner = self.owner
        return owner != nil && call.sender == owner
    }

    /// Answers `invocation` AccessDenied unless it comes from bluetoothd; returns whether it does.
    func admits(_ invocation: DBusMethodInvocation) -> Bool {
        guard isBluetoothd(invocation.call) else {
            _ = invocation.fail(Self.accessDenied)
            return false
        }
        return true
    }

    /// Stops following the owner.
    func cancel() {
        let watch = state.withLock { state -> AnyCancellable? in
            defer { state.watch = nil }
            return state.watch
        }
        watch?.cancel()
    }
}
