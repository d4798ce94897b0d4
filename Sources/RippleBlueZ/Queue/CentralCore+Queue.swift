import Ripple
import RippleDBus

extension CentralCore {
    /// The operation queue of the device at `device` (made on first use; it lives as long as the central).
    func gattQueue(for device: DBusObjectPath) -> GATTOperationQueue {
        lock.withLock {
            if let queue = gattQueues[device] { return queue }
            let queue = GATTOperationQueue(loop: loop)
            gattQueues[device] = queue
            return queue
        }
    }

    /// `make`'s single-value operation, run in its turn in the queue of `device` (an `urgent` one — a
    /// connection task's — first), failing with ``BluetoothError/Kind/timeout`` when it has not ended
    /// `timeout` after it started.
    func queued<Output: Sendable>(
        on device: DBusObjectPath, _ description: String, timeout: Duration, urgent: Bool = false,
        _ make: @escaping @Sendable () -> AnyPublisher<Output, BluetoothError>
    ) -> AnyPublisher<Output, BluetoothError> {
        QueuedOperation(
            queue: gattQueue(for: device), loop: loop, id: nextID(), urgent: urgent, timeout: timeout,
            description: description, make: make
        ).eraseToAnyPublisher()
    }
}

extension DBusObjectPath {
    /// The device an attribute's path lies under (`/org/bluez/hci0/dev_…` of
    /// `/org/bluez/hci0/dev_…/service000a/char000b`), or the path itself when it is not below one.
    var devicePath: DBusObjectPath {
        let parts = description.split(separator: "/")
        guard parts.count > 4, parts[3].hasPrefix("dev_") else { return self }
        return (try? DBusObjectPath("/" + parts.prefix(4).joined(separator: "/"))) ?? self
    }
}
