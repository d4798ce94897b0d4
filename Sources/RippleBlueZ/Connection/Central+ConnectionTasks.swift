import Ripple
import RippleDBus

/// An operation run on a peripheral after each connection and reconnection, before it is ready: an
/// authentication write, a configuration read. It gets a handle whose operations go before every
/// other operation of the peripheral; it ends (emits nothing or anything, then finishes) to let them go.
public typealias ConnectionTask = @Sendable (Peripheral) -> AnyPublisher<Void, BluetoothError>

extension Central {
    /// Runs `task` on the peripheral with `address` after each of its connections and reconnections,
    /// before the connection is ready: ``connect(to:timeout:autoReconnect:)-(BluetoothAddress,_,_)`` emits the
    /// peripheral (and ``ConnectionEvent/ready(_:)`` comes) only once every task has finished, in the
    /// order they were added; the peripheral's other GATT operations wait until then. A task that fails
    /// fails the connection (``BluetoothError/Kind/connectionFailed`` with the task's error) and the link is
    /// taken down. The task stays until the returned cancellable is cancelled or released.
    ///
    /// - Parameters:
    ///   - address: the peripheral's Bluetooth address.
    ///   - task: the operation, given the privileged handle.
    /// - Returns: what removes the task.
    public func onConnect(_ address: BluetoothAddress, perform task: @escaping ConnectionTask) -> AnyCancellable {
        let core = self.core
        let key = address
        let id = core.nextID()
        core.perform { core.confined.value.connectionTasks[key, default: []].append((id, task)) }
        return AnyCancellable {
            core.perform {
                core.confined.value.connectionTasks[key]?.removeAll { $0.id == id }
                if core.confined.value.connectionTasks[key]?.isEmpty == true {
                    core.confined.value.connectionTasks[key] = nil
                }
            }
        }
    }
}

extension CentralCore {
    /// Whether connection tasks are registered for the peripheral at `path`.
    func hasConnectionTasks(_ path: DBusObjectPath) -> Bool {
        guard let record = confined.value.connections[path] else { return false }
        return confined.value.connectionTasks[record.address]?.isEmpty == false
    }

    /// Runs the connection tasks of the peripheral at `path`, its queue held for everyone else; their
    /// end goes to its connection machine.
    ///
    /// - Parameter path: the device's object path.
    /// - Returns: false when there was no task to run.
    func runConnectionTasks(_ path: DBusObjectPath) -> Bool {
        guard let central, let record = confined.value.connections[path] else { return false }
        let address = record.address
        let tasks = confined.value.connectionTasks[address]?.map(\.task) ?? []
        guard !tasks.isEmpty else { return false }
        queueEvent(path, .hold(.connectionTasks))
        let privileged = Peripheral(central: central, address: address, path: path, isInConnectionTask: true)
        let chain = Publishers.Sequence<[ConnectionTask], BluetoothError>(sequence: tasks)
            .flatMap(maxPublishers: .max(1)) { task in task(privileged).collect() }
            .collect()
        let subscription = chain.sink(
            receiveCompletion: { [weak self] completion in
                self?.perform { [weak self] in
                    guard let self, self.confined.value.connections[path]?.tasks != nil else { return }
                    confined.value.connections[path]?.tasks = nil
                    queueEvent(path, .release(.connectionTasks))
                    if case .failure(let error) = completion {
                        connectionEvent(
                            path,
                            .tasksFailed(
                                BluetoothError(
                                    .connectionFailed, "a connection task failed: \(error.message)",
                                    bluezName: error.bluezName, bluezMessage: error.bluezMessage)))
                    } else {
                        connectionEvent(path, .tasksFinished)
                    }
                }
            },
            receiveValue: { _ in })
        confined.value.connections[path]?.tasks = subscription
        return true
    }
}
