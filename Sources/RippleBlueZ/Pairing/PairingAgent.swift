import Ripple
import RippleDBus
import Synchronization

/// This process's pairing agent (`org.bluez.Agent1`), registered with bluetoothd by
/// ``Central/registerPairingAgent(capability:asDefault:handler:)``: bluetoothd puts its pairing questions
/// to the handler. ``unregister()`` (or releasing it) takes it away.
public final class PairingAgent: Sendable {
    /// Its object path on the central's connection.
    public let path: DBusObjectPath
    private let connection: DBusConnection
    /// The only caller the agent answers.
    private let bluetoothd: BluetoothdOwner
    private let registered = Atomic<Bool>(true)

    init(path: DBusObjectPath, connection: DBusConnection, bluetoothd: BluetoothdOwner) {
        self.path = path
        self.connection = connection
        self.bluetoothd = bluetoothd
    }

    /// Unregisters the agent and stops answering. Idempotent.
    public func unregister() {
        guard registered.exchange(false, ordering: .acquiringAndReleasing) else { return }
        let call = connection.call(
            destination: BlueZ.service, path: BlueZ.root, interface: BlueZ.agentManager, member: "UnregisterAgent",
            arguments: [.objectPath(path)])
        let box = CancellableBox()
        box.cancellable = call.sink(receiveCompletion: { _ in box.cancellable = nil }, receiveValue: { _ in })
        _ = connection.unexport(path)
        bluetoothd.cancel()
    }

    deinit {
        unregister()
    }

    /// The `org.bluez.Agent1` interface answering `bluetoothd` with `handler` (any other caller gets
    /// `org.freedesktop.DBus.Error.AccessDenied`, and the handler never sees the call).
    static func interface(handler: @escaping PairingHandler, bluetoothd: BluetoothdOwner) -> DBusInterface {
        func method(
            _ name: String, _ inputs: [DBusType], _ outputs: [DBusType] = [],
            _ question: @escaping @Sendable (DBusMethodCall) -> PairingRequest.Kind?,
            _ answer: @escaping @Sendable (PairingResponse) -> [DBusValue]?
        ) -> DBusMethod {
            DBusMethod(
                name: name, inputSignature: DBusSignature(types: inputs), outputSignature: DBusSignature(types: outputs)
            ) {
                invocation in
                guard bluetoothd.admits(invocation) else { return }
                guard let kind = question(invocation.call) else {
                    _ = invocation.fail(.remote(name: "org.bluez.Error.Rejected", message: "Rejected"))
                    return
                }
                let request = PairingRequest(
                    address: invocation.call.arguments.first?.objectPath.flatMap(Self.address(of:)), kind: kind)
                Task {
                    let response = await handler(request)
                    if let values = answer(response) {
                        _ = invocation.reply(values)
                    } else {
                        _ = invocation.fail(.remote(name: "org.bluez.Error.Rejected", message: "Rejected"))
                    }
                }
            }
        }
        let yes: @Sendable (PairingResponse) -> [DBusValue]? = { $0 == .reject ? nil : [] }
        return DBusInterface(
            name: BlueZ.agent,
            methods: [
                DBusMethod(name: "Release") { invocation in
                    if bluetoothd.admits(invocation) { _ = invocation.reply() }
                },
                DBusMethod(name: "Cancel") { invocation in
                    if bluetoothd.admits(invocation) { _ = invocation.reply() }
                },
                method(
                    "RequestConfirmation", [.objectPath, .uint32], [],
                    { call in call.arguments.dropFirst().first?.uint32.map { .confirmPasskey($0) } }, yes),
                method("RequestPasskey", [.objectPath], [.uint32], { _ in .enterPasskey }) { response in
                    if case .passkey(let value) = response, value <= 999_999 { return [.uint32(value)] }
                    return nil
                },
                method(
                    "DisplayPasskey", [.objectPath, .uint32, .uint16], [],
                    { call in call.arguments.dropFirst().first?.uint32.map { .displayPasskey($0) } }, yes),
                method("RequestPinCode", [.objectPath], [.string], { _ in .enterPinCode }) { response in
                    if case .pinCode(let code) = response, (1...16).contains(code.utf8.count) { return [.string(code)] }
                    return nil
                },
                method(
                    "DisplayPinCode", [.objectPath, .string], [],
                    { call in call.arguments.dropFirst().first?.string.map { .displayPinCode($0) } }, yes),
                method("RequestAuthorization", [.objectPath], [], { _ in .authorizePairing }, yes),
                method(
                    "AuthorizeService", [.objectPath, .string], [],
                    { call in call.arguments.dropFirst().first?.string.map { .authorizeService($0) } }, yes),
            ])
    }

    /// Exports an agent at `path` on `connection` and registers it with bluetoothd (`RegisterAgent`, then
    /// `RequestDefaultAgent` when `asDefault`).
    ///
    /// - Parameters:
    ///   - connection: the connection the agent answers on.
    ///   - path: where the agent is exported.
    ///   - capability: what the person can do on this side.
    ///   - asDefault: whether the agent also answers pairings nobody on this connection started.
    ///   - handler: answers bluetoothd's questions.
    /// - Returns: the registered agent.
    /// - Throws: ``BluetoothError`` when it cannot be exported, or with bluetoothd's error.
    static func register(
        on connection: DBusConnection, path: String, capability: PairingCapability, asDefault: Bool,
        handler: @escaping PairingHandler
    ) async throws(BluetoothError) -> PairingAgent {
        let objectPath: DBusObjectPath
        let bluetoothd = BluetoothdOwner(connection: connection)
        do {
            objectPath = try DBusObjectPath(path)
            try connection.export(
                DBusExportedObject(path: objectPath, interfaces: [interface(handler: handler, bluetoothd: bluetoothd)]))
        } catch {
            bluetoothd.cancel()
            throw BluetoothError(.failed, "cannot export the pairing agent: \(error)")
        }
        let agent = PairingAgent(path: objectPath, connection: connection, bluetoothd: bluetoothd)
        do {
            for try await _ in connection.call(
                destination: BlueZ.service, path: BlueZ.root, interface: BlueZ.agentManager, member: "RegisterAgent",
                arguments: [.objectPath(objectPath), .string(capability.rawValue)]
            ).values {}
            if asDefault {
                for try await _ in connection.call(
                    destination: BlueZ.service, path: BlueZ.root, interface: BlueZ.agentManager,
                    member: "RequestDefaultAgent", arguments: [.objectPath(objectPath)]
                ).values {}
            }
        } catch {
            agent.unregister()
            throw BluetoothError(error as? DBusError ?? .disconnected, during: "registering the pairing agent")
        }
        return agent
    }

    /// `C0:FF:EE:00:00:01` from `/org/bluez/hci0/dev_C0_FF_EE_00_00_01`.
    static func address(of device: DBusObjectPath) -> BluetoothAddress? {
        guard let last = device.description.split(separator: "/").last, last.hasPrefix("dev_") else { return nil }
        return try? BluetoothAddress(String(last.dropFirst(4)))
    }
}
