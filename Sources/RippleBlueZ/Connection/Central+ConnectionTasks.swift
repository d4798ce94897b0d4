import Ripple
import RippleDBus
import Synchronization

/// An operation run on a peripheral after each connection and reconnection, before it is ready: an
/// authentication write, a configuration read. It gets a handle whose operations go before every
/// other operation of the peripheral; it ends (emits nothing or anything, then finishes) to let them go.
public typealias ConnectionTask = @Sendable (Peripheral) -> AnyPublisher<Void, BluetoothError>

extension Central {
    /// Runs `task` on the peripheral with `address` after each of its connections and reconnections,
    /// before the connection is ready: ``connect(to:timeout:autoReconnect:)-(String,_,_)`` emits the
    /// peripheral (and ``ConnectionEvent/ready(_:)`` comes) only once every task has finished, in the
    /// order they were added; the peripheral's other GATT operations wait until then. A task that fails
    /// fails the connection (``BluetoothError/Kind/connectionFailed`` with the task's error) and the link is
    /// taken down. The task stays until the returned cancellable is cancelled or released.
    public func onConnect(_ address: String, perform task: @escaping ConnectionTask) -> AnyCancellable {
        let core = self.core
        let key = address.uppercased()
        let id = core.nextID()
        core.lock.withLock { core.connectionTasks[key, default: []].append((id, task)) }
        return AnyCancellable {
            core.lock.withLock {
                core.connectionTasks[key]?.removeAll { $0.id == id }
                if core.connectionTasks[key]?.isEmpty == true { core.connectionTasks[key] = nil }
            }
        }
    }
}

extension CentralCore {
    /// Runs the connection tasks of the peripheral at `path` (its queue held for everyone else), then
    /// `finish` with nil, or with the failure of the first task that failed.
    func runConnectionTasks(_ path: DBusObjectPath, then finish: @escaping @Sendable (BluetoothError?) -> Void) {
        guard let central, let address = deviceProperties(path)?["Address"]?.string else {
            finish(nil)
            return
        }
        let tasks = lock.withLock { connectionTasks[address.uppercased()]?.map(\.task) ?? [] }
        guard !tasks.isEmpty else {
            finish(nil)
            return
        }
        let queue = gattQueue(for: path)
        queue.hold()
        let released = Atomic(false)
        let release: @Sendable () -> Void = {
            // Once: the chain ends, or the attempt is abandoned.
            if !released.exchange(true, ordering: .acquiringAndReleasing) { queue.release() }
        }
        let privileged = Peripheral(central: central, address: address, path: path, isInConnectionTask: true)
        let chain = Publishers.Sequence<[ConnectionTask], BluetoothError>(sequence: tasks)
            .flatMap(maxPublishers: .max(1)) { task in task(privileged).collect() }
            .collect()
            .handleEvents(receiveCancel: release)
        let subscription = chain.sink(
            receiveCompletion: { completion in
                release()
                if case .failure(let error) = completion {
                    finish(
                        BluetoothError(
                            .connectionFailed, "a connection task failed: \(error.message)", bluezName: error.bluezName,
                            bluezMessage: error.bluezMessage))
                } else {
                    finish(nil)
                }
            },
            receiveValue: { _ in })
        lock.withLock { attempts[path]?.tasks = subscription }
    }
}
