import Ripple
import RippleDBus
import RippleLoop

/// The simulator's scripting API on D-Bus, so that a test in any language (bleak's, in Python) can change
/// the world while its client runs: the object ``objectPathString`` with the interface ``interfaceName``, on a
/// connection of its own owning ``busName`` — never on the connection that owns `org.bluez`, whose
/// ObjectManager must show nothing but bluetoothd's tree.
///
/// Methods of `org.ripple.BlueZSimulator1` (addresses `"XX:XX:XX:XX:XX:XX"`, UUIDs in any form
/// ``BluetoothUUID`` reads):
/// - `Disconnect(s address, s reason)`: the peripheral drops the link; `reason` is `remote` (also for
///   `""`), `timeout`, `local`, `unknown`, `authentication`, `suspend`, or `org.bluez.Reason.*`.
/// - `SetInRange(s address, b inRange)`, `SetPowered(s adapter, b powered)`.
/// - `Notify(s address, s characteristic, ay value)`.
/// - `InjectFault(s address, s operation, s attribute, s fault, a{sv} options)`: `operation` is `connect`,
///   `disconnect`, `pair` (with `attribute` `""`), or `read`, `write`, `start-notify`, `stop-notify`,
///   `acquire-notify`, `acquire-write`, `read-descriptor`, `write-descriptor` (with the attribute's UUID);
///   `fault` is `fail`, `delay`, `fail-after`, `disconnect` or `connect-without-connected-signal`;
///   options: `error` (s: `org.bluez.Error.X` or `X`, `Failed` by default), `message` (s: bluetoothd's
///   own for the known names by default), `att` (an integer: an ATT error code, reported as bluetoothd
///   does, instead of `error`), `delay` (seconds, d or an integer), `reason` (s, for `disconnect`),
///   `times` (an integer > 0; every call when absent).
/// - `ClearFaults(s address)`, `Restart(d downtimeSeconds)`.
/// - `GetStatistics() → a{sv}`: `SocketNotifications`, `SignalNotifications`, `EmitterCPUNanoseconds`,
///   `ProcessCPUNanoseconds` (x) and `EmitterNanosecondsPerNotification` (d).
///
/// Calls are carried out one after another in the order they arrive, each replied once its change has
/// taken effect. Malformed arguments are answered `org.ripple.BlueZSimulator.Error.InvalidArguments`;
/// the simulator's refusals by ``SimulatorError`` case: `InvalidArguments` (``SimulatorError/invalidWorld(_:)``),
/// `UnknownPeripheral`, `UnknownAttribute`, `NotConnected`, `NotRunning`, `Failed` (bus errors).
public final class SimulatorControlService: Sendable {
    /// The bus name the service owns.
    public static let busName = "org.ripple.BlueZSimulator"
    /// The path of its object.
    public static let objectPathString = "/org/ripple/BlueZSimulator"
    /// Its interface.
    public static let interfaceName = "org.ripple.BlueZSimulator1"
    /// The prefix of its error names.
    public static let errorPrefix = "org.ripple.BlueZSimulator.Error."

    private struct Command: Sendable {
        let invocation: DBusMethodInvocation
        let work: @Sendable () async throws(SimulatorError) -> [DBusValue]
    }

    private struct Running {
        let connection: DBusConnection
        let commands: AsyncStream<Command>.Continuation
        let worker: Task<Void, Never>
    }

    private let simulator: any SimulatorScripting
    private let bus: DBusBus
    private let loop: EventLoop
    private let lock = Lock()
    private nonisolated(unsafe) var running: Running?

    /// A service scripting `simulator`, to be started on `bus` with its connection driven by `loop`.
    ///
    /// - Parameters:
    ///   - simulator: the simulator it scripts.
    ///   - bus: the bus it serves on.
    ///   - loop: the loop that drives its connection.
    public init(simulator: any SimulatorScripting, bus: DBusBus, loop: EventLoop) {
        self.simulator = simulator
        self.bus = bus
        self.loop = loop
    }

    deinit {
        // Dropped without ``stop()``: the worker would wait for commands for ever, and the connection
        // (whose exported object holds the commands' continuation) would stay open.
        if let running {
            running.commands.finish()
            running.connection.close()
        }
    }

    /// Whether the service is started.
    public var isRunning: Bool {
        lock.withLock { running != nil }
    }

    /// The unique bus name of the service's connection while it runs.
    public var uniqueName: String? {
        lock.withLock { running?.connection.uniqueName }
    }

    /// Connects, exports the object and takes ``busName``. Does nothing when already started.
    ///
    /// - Throws: ``SimulatorError/bus(_:)`` when the bus cannot be reached or another connection owns the name.
    public func start() async throws(SimulatorError) {
        guard !isRunning else { return }
        let connection: DBusConnection
        let (commands, continuation) = AsyncStream.makeStream(of: Command.self)
        do {
            connection = try DBusConnection(bus: bus, loop: loop)
            let object = try DBusExportedObject(
                path: try DBusObjectPath(Self.objectPathString), interfaces: [try makeInterface(continuation)])
            try connection.export(object)
        } catch {
            continuation.finish()
            throw .bus(error)
        }
        let reply: DBusRequestNameReply
        do {
            reply = try await connection.requestName(Self.busName, flags: .doNotQueue).firstValue
        } catch {
            connection.close()
            continuation.finish()
            throw .bus(error as? DBusError ?? .disconnected)
        }
        guard reply == .primaryOwner || reply == .alreadyOwner else {
            connection.close()
            continuation.finish()
            throw .bus(
                .remote(
                    name: "org.freedesktop.DBus.Error.AddressInUse",
                    message: "\(Self.busName) is owned by another connection"))
        }
        let worker = Task {
            for await command in commands {
                do throws(SimulatorError) {
                    command.invocation.reply(try await command.work())
                } catch {
                    command.invocation.fail(Self.dbusError(error))
                }
            }
        }
        let replaced = lock.withLock {
            defer { running = Running(connection: connection, commands: continuation, worker: worker) }
            return running
        }
        // A concurrent start that won the race: keep its service, drop this one.
        if let replaced {
            lock.withLock { running = replaced }
            connection.close()
            continuation.finish()
        }
    }

    /// Closes the service's connection (giving up ``busName``) after the calls already received are done.
    public func stop() async {
        guard
            let stopped = lock.withLock({ () -> Running? in
                defer { running = nil }
                return running
            })
        else { return }
        stopped.commands.finish()
        await stopped.worker.value
        // A round trip, so that the bus has taken the name away before this returns.
        _ = try? await stopped.connection.releaseName(Self.busName).firstValue
        stopped.connection.close()
    }

    /// The D-Bus error for a simulator's refusal.
    static func dbusError(_ error: SimulatorError) -> DBusError {
        switch error {
        case .invalidWorld(let message): .remote(name: errorPrefix + "InvalidArguments", message: message)
        case .unknownPeripheral: .remote(name: errorPrefix + "UnknownPeripheral", message: error.description)
        case .unknownAttribute: .remote(name: errorPrefix + "UnknownAttribute", message: error.description)
        case .notConnected: .remote(name: errorPrefix + "NotConnected", message: error.description)
        case .notRunning: .remote(name: errorPrefix + "NotRunning", message: error.description)
        case .bus: .remote(name: errorPrefix + "Failed", message: error.description)
        }
    }

    // MARK: The interface

    private func makeInterface(_ commands: AsyncStream<Command>.Continuation) throws(DBusError) -> DBusInterface {
        let simulator = self.simulator
        /// A method whose arguments `parse` reads (on the loop thread) into work queued for the worker.
        func method(
            _ name: String, _ input: String, _ names: [String], output: String = "", outputNames: [String] = [],
            parse:
                @escaping @Sendable ([DBusValue]) throws(DBusError) ->
                @Sendable () async throws(SimulatorError)
                -> [DBusValue]
        ) throws(DBusError) -> DBusMethod {
            DBusMethod(
                name: name, inputSignature: try DBusSignature(input), outputSignature: try DBusSignature(output),
                inputNames: names, outputNames: outputNames
            ) { invocation in
                do throws(DBusError) {
                    let work = try parse(invocation.call.arguments)
                    commands.yield(Command(invocation: invocation, work: work))
                } catch {
                    invocation.fail(error)
                }
            }
        }
        let methods = [
            try method("Disconnect", "ss", ["address", "reason"]) { arguments throws(DBusError) in
                let address = try ControlArguments.address(arguments.first)
                let reason = try ControlArguments.reason(arguments.last?.string ?? "")
                return { () throws(SimulatorError) in
                    try await simulator.disconnect(peripheral: address, reason: reason)
                    return []
                }
            },
            try method("SetInRange", "sb", ["address", "inRange"]) { arguments throws(DBusError) in
                let address = try ControlArguments.address(arguments.first)
                let inRange = arguments.last?.boolean ?? true
                return { () throws(SimulatorError) in
                    try await simulator.setInRange(inRange, peripheral: address)
                    return []
                }
            },
            try method("SetPowered", "sb", ["adapter", "powered"]) { arguments throws(DBusError) in
                let adapter = arguments.first?.string ?? ""
                let powered = arguments.last?.boolean ?? true
                return { () throws(SimulatorError) in
                    try await simulator.setPowered(powered, adapter: adapter)
                    return []
                }
            },
            try method("Notify", "ssay", ["address", "characteristic", "value"]) { arguments throws(DBusError) in
                let address = try ControlArguments.address(arguments.first)
                let uuid = try ControlArguments.uuid(arguments.dropFirst().first)
                let value = arguments.last?.bytes ?? []
                return { () throws(SimulatorError) in
                    try await simulator.notify(peripheral: address, characteristic: uuid, value: value)
                    return []
                }
            },
            try method(
                "InjectFault", "ssssa{sv}", ["address", "operation", "attribute", "fault", "options"]
            ) { arguments throws(DBusError) in
                let address = try ControlArguments.address(arguments.first)
                let strings = arguments.map { $0.string ?? "" }
                let operation = try ControlArguments.operation(
                    strings.dropFirst().first ?? "", attribute: strings.dropFirst(2).first ?? "")
                let (fault, times) = try ControlArguments.fault(
                    strings.dropFirst(3).first ?? "", options: arguments.last)
                return { () throws(SimulatorError) in
                    try await simulator.inject(fault, on: operation, of: address, times: times)
                    return []
                }
            },
            try method("ClearFaults", "s", ["address"]) { arguments throws(DBusError) in
                let address = try ControlArguments.address(arguments.first)
                return { () throws(SimulatorError) in
                    try await simulator.clearFaults(of: address)
                    return []
                }
            },
            try method("Restart", "d", ["downtimeSeconds"]) { arguments throws(DBusError) in
                let seconds = arguments.first?.double ?? 0
                guard seconds >= 0, seconds < 3600 else {
                    throw ControlArguments.invalid("the downtime must be 0…3600 seconds")
                }
                let downtime = Duration.microseconds(Int64((seconds * 1_000_000).rounded()))
                return { () throws(SimulatorError) in
                    try await simulator.restart(downtime: downtime)
                    return []
                }
            },
            try method("GetStatistics", "", [], output: "a{sv}", outputNames: ["statistics"]) { _ throws(DBusError) in
                { () throws(SimulatorError) in [Self.statisticsValue(simulator.statistics.snapshot)] }
            },
        ]
        return DBusInterface(name: Self.interfaceName, methods: methods)
    }

    /// The `a{sv}` `GetStatistics` answers.
    static func statisticsValue(_ snapshot: SimulatorStatistics.Snapshot) -> DBusValue {
        .stringVariantDictionary([
            "SocketNotifications": .int64(Int64(snapshot.socketNotifications)),
            "SignalNotifications": .int64(Int64(snapshot.signalNotifications)),
            "EmitterCPUNanoseconds": .int64(Int64(snapshot.emitterCPUNanoseconds)),
            "ProcessCPUNanoseconds": .int64(Int64(snapshot.processCPUNanoseconds)),
            "EmitterNanosecondsPerNotification": .double(snapshot.emitterNanosecondsPerNotification),
        ])
    }
}
