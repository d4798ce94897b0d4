import Ripple
import RippleDBus
import RippleLoop

/// The running simulator (loop-confined): the connection that owns `org.bluez`, the object tree, the
/// adapters and their devices, and the clients it watches.
final class SimulatorCore: Sendable {
    let loop: EventLoop
    let connection: DBusConnection
    let configuration: BlueZSimulator.Configuration
    let statistics: SimulatorStatistics
    let makeGATT: @Sendable ([SimulatedService]) throws(SimulatorError) -> any PeripheralGATT
    nonisolated(unsafe) private(set) var adapters: [AdapterRuntime] = []
    /// Whether bluetoothd is "running": it owns the name and its tree is exported.
    nonisolated(unsafe) private(set) var isServing = false
    nonisolated(unsafe) private var agentManager: DBusExportedObject?
    /// The agents clients registered (loop-confined).
    let agents = AgentRegistry()
    /// Clients whose departure from the bus matters (discovery, filters, notification sessions).
    nonisolated(unsafe) private var watchedClients: Set<String> = []
    nonisolated(unsafe) private var nameWatch: AnyCancellable?
    /// Problems met while serving (the simulator never traps on them); the latest first is kept short.
    nonisolated(unsafe) private(set) var problems: [String] = []
    /// The shuffled order's outbox and source of choices; nil in order.
    let outbox: SignalOutbox?
    /// Calls bluetoothd dropped without an answer (a `Connect()` whose device was removed): kept until
    /// bluetoothd stops, so that their callers get nothing before their own timeout.
    nonisolated(unsafe) private var unanswered: [DBusMethodInvocation] = []

    init(
        loop: EventLoop, connection: DBusConnection, configuration: BlueZSimulator.Configuration,
        statistics: SimulatorStatistics,
        makeGATT: @escaping @Sendable ([SimulatedService]) throws(SimulatorError) -> any PeripheralGATT
    ) {
        self.loop = loop
        self.connection = connection
        self.configuration = configuration
        self.statistics = statistics
        self.makeGATT = makeGATT
        switch configuration.signalOrder {
        case .inOrder: outbox = nil
        case .shuffled(let seed): outbox = SignalOutbox(loop: loop, connection: connection, seed: seed)
        }
    }

    /// Keeps `invocation` unanswered until bluetoothd stops, as bluetoothd drops a message it will not
    /// answer (its caller's own timeout ends the call).
    func leaveUnanswered(_ invocation: DBusMethodInvocation) {
        unanswered.append(invocation)
    }

    func report(_ problem: String) {
        problems.append(problem)
        if problems.count > 100 { problems.removeFirst() }
    }

    // MARK: The world

    func addAdapter(_ adapter: SimulatedAdapter) throws(SimulatorError) {
        guard DBusObjectPath.isValidElement(adapter.name), !adapter.name.isEmpty else {
            throw .invalidWorld("the adapter name \"\(adapter.name)\" cannot be an object path element")
        }
        guard !adapters.contains(where: { $0.configuration.name == adapter.name }) else {
            throw .invalidWorld("two adapters are named \(adapter.name)")
        }
        let runtime = AdapterRuntime(adapter, core: self)
        adapters.append(runtime)
        if isServing {
            do { try runtime.export() } catch { throw .bus(error) }
        }
    }

    func addPeripheral(_ peripheral: SimulatedPeripheral, adapter name: String) throws(SimulatorError) {
        guard let adapter = adapter(named: name) else { throw .invalidWorld("no adapter is named \(name)") }
        guard device(peripheral.address) == nil else {
            throw .invalidWorld("two peripherals have the address \(peripheral.address)")
        }
        let device = SimulatedDevice(peripheral: peripheral, adapter: adapter, gatt: try makeGATT(peripheral.services))
        adapter.devices.append(device)
        if isServing {
            if device.isStored { device.ensureObject() }
            device.updateAdvertising()
        }
    }

    func removePeripheral(_ address: BluetoothAddress) throws(SimulatorError) {
        guard let device = device(address) else { throw .unknownPeripheral(address) }
        device.removeObject()
        device.updateAdvertising()
        device.adapter.devices.removeAll { $0 === device }
    }

    func adapter(named name: String) -> AdapterRuntime? {
        adapters.first { $0.configuration.name == name }
    }

    func device(_ address: BluetoothAddress) -> SimulatedDevice? {
        for adapter in adapters {
            if let device = adapter.devices.first(where: { $0.peripheral.address == address }) { return device }
        }
        return nil
    }

    // MARK: Serving

    /// Exports the tree: `/` object manager, `/org/bluez` with the agent manager, the adapters, the stored
    /// devices. (The name is requested after, so that a client that sees the owner appear finds the tree.)
    func exportTree() throws(SimulatorError) {
        do {
            try connection.exportObjectManager(at: .root)
            let agentManager = try DBusExportedObject(
                path: BlueZInterface.root, interfaces: [Self.agentManagerInterface(agents)])
            try connection.export(agentManager)
            self.agentManager = agentManager
            for adapter in adapters { try adapter.export() }
        } catch {
            throw .bus(error)
        }
        isServing = true
        for adapter in adapters {
            for device in adapter.devices where device.isStored { device.ensureObject() }
        }
        if let outbox {
            // Shuffled: a device in range may already be in the tree, seen by another client's discovery
            // within TemporaryTimeout (its RSSI forgotten when that discovery stopped).
            for adapter in adapters {
                for device in adapter.devices where !device.isStored && device.isInRange {
                    if outbox.draw(.seenBefore, { $0.oneIn(4) }) {
                        device.ensureObject()
                        device.restartExpiry()
                    }
                }
            }
        }
        if nameWatch == nil { watchNameOwners() }
    }

    /// Takes the whole tree down, as when bluetoothd exits: objects unexported, every session and
    /// connection forgotten (sockets closed), nothing signalled for them but `InterfacesRemoved`.
    func unexportTree() {
        isServing = false
        for adapter in adapters {
            for device in adapter.devices {
                if let object = device.object { connection.unexport(object.path) }
                device.dropObjectSilently()
            }
            if let object = adapter.object { connection.unexport(object.path) }
            adapter.dropSilently()
        }
        if let agentManager { connection.unexport(agentManager.path) }
        agentManager = nil
        connection.unexportObjectManager(at: .root)
        watchedClients.removeAll()
        outbox?.flushAll()
        unanswered.removeAll()
    }

    // MARK: Clients

    /// Remembers `client`, so that its departure from the bus ends what it started.
    func watchClient(_ client: String) {
        guard !client.isEmpty else { return }
        watchedClients.insert(client)
    }

    private func watchNameOwners() {
        let rule = DBusMatchRule(
            sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged")
        nameWatch = connection.signals(matching: rule).sink(
            receiveCompletion: { _ in },
            receiveValue: { [weak self] message in
                guard message.body.count == 3, let name = message.body[0].string, name.hasPrefix(":"),
                    message.body[2].string == ""
                else { return }
                self?.clientVanished(name)
            })
    }

    func clientVanished(_ client: String) {
        for adapter in adapters {
            adapter.clientVanished(client)
            for device in adapter.devices { device.gatt.clientVanished(client) }
        }
        watchedClients.remove(client)
    }

    // MARK: Agent manager

    private static func agentManagerInterface(_ registered: AgentRegistry) -> DBusInterface {
        return DBusInterface(
            name: BlueZInterface.agentManager,
            methods: [
                DBusMethod(
                    name: "RegisterAgent", inputSignature: DBusSignature(types: [.objectPath, .string]),
                    inputNames: ["agent", "capability"]
                ) { call throws(DBusError) in
                    try registered.register(call).get()
                    return []
                },
                DBusMethod(
                    name: "UnregisterAgent", inputSignature: DBusSignature(types: [.objectPath]), inputNames: ["agent"]
                ) {
                    call throws(DBusError) in
                    try registered.unregister(call).get()
                    return []
                },
                DBusMethod(
                    name: "RequestDefaultAgent", inputSignature: DBusSignature(types: [.objectPath]),
                    inputNames: ["agent"]
                ) { call throws(DBusError) in
                    try registered.requestDefault(call).get()
                    return []
                },
            ])
    }
}

/// The agents registered with `AgentManager1` (loop-confined), with bluetoothd's checks.
final class AgentRegistry: Sendable {
    static let capabilities: Set<String> = [
        "", "DisplayOnly", "DisplayYesNo", "KeyboardOnly", "NoInputNoOutput", "KeyboardDisplay",
    ]
    nonisolated(unsafe) private var agents: [String: DBusObjectPath] = [:]
    nonisolated(unsafe) private var defaultAgent: (String, DBusObjectPath)?

    func register(_ call: DBusMethodCall) -> Result<Void, DBusError> {
        guard let sender = call.sender, let path = call.arguments.first?.objectPath,
            let capability = call.arguments.last?.string, Self.capabilities.contains(capability)
        else { return .failure(BlueZError.invalidArguments.dbusError) }
        guard agents[sender] == nil else { return .failure(BlueZError.alreadyExists.dbusError) }
        agents[sender] = path
        return .success(())
    }

    func unregister(_ call: DBusMethodCall) -> Result<Void, DBusError> {
        guard let sender = call.sender, let path = call.arguments.first?.objectPath, agents[sender] == path else {
            return .failure(BlueZError.doesNotExist.dbusError)
        }
        agents[sender] = nil
        if defaultAgent?.0 == sender { defaultAgent = nil }
        return .success(())
    }

    /// The agent that answers for a `Pair()` from `sender`: its own, else the default one.
    func agent(for sender: String?) -> (name: String, path: DBusObjectPath)? {
        if let sender, let path = agents[sender] { return (sender, path) }
        return defaultAgent.map { (name: $0.0, path: $0.1) }
    }

    func requestDefault(_ call: DBusMethodCall) -> Result<Void, DBusError> {
        guard let sender = call.sender, let path = call.arguments.first?.objectPath, agents[sender] == path else {
            return .failure(BlueZError.doesNotExist.dbusError)
        }
        defaultAgent = (sender, path)
        return .success(())
    }
}
