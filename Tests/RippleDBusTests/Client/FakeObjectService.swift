import Ripple
import RippleLoop
import Testing

@testable import RippleDBus

/// A test-only D-Bus service playing an object tree on `connection`: it answers
/// `ObjectManager.GetManagedObjects` (at `managerPath`) and `Properties.Get`/`GetAll`/`Set` from its state,
/// and its mutations change the state and emit the matching signals together, on the connection's loop
/// thread — as a real (single-threaded) service does, so that answers and signals agree on the order.
final class FakeObjectService: MethodCallHandling, Sendable {
    static let objectManager = "org.freedesktop.DBus.ObjectManager"
    static let properties = "org.freedesktop.DBus.Properties"

    let connection: DBusConnection
    let managerPath: DBusObjectPath

    private let lock = Lock()
    private nonisolated(unsafe) var state: DBusManagedObjects
    /// Bodies to answer a member with instead of the real answer (malformed replies).
    private nonisolated(unsafe) var canned: [String: [DBusValue]] = [:]
    /// Runs on the loop thread just before (`true`) or just after (`false`) answering GetManagedObjects.
    private nonisolated(unsafe) var aroundSnapshot: [Bool: @Sendable (FakeObjectService, ConnectionCore) -> Void] = [:]
    /// The state of the pseudo-random mutations.
    private nonisolated(unsafe) var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
    private nonisolated(unsafe) var nextObject = 0

    private init(connection: DBusConnection, managerPath: DBusObjectPath, objects: DBusManagedObjects) {
        self.connection = connection
        self.managerPath = managerPath
        self.state = objects
    }

    /// A service on `connection` answering for `objects`, owning `name` when given.
    static func start(
        on connection: DBusConnection, name: String?, managerPath: DBusObjectPath, objects: DBusManagedObjects
    ) async throws -> FakeObjectService {
        let service = FakeObjectService(connection: connection, managerPath: managerPath, objects: objects)
        await onLoop(connection) { $0.core.methodCallHandler = service }
        if let name {
            try await connection.takeName(name)
        }
        return service
    }

    var objects: DBusManagedObjects { lock.withLock { state } }

    func cannedReply(to member: String, body: [DBusValue]) {
        lock.withLock { canned[member] = body }
    }

    func whenAnsweringSnapshot(before: Bool, _ body: @escaping @Sendable (FakeObjectService, ConnectionCore) -> Void) {
        lock.withLock { aroundSnapshot[before] = body }
    }

    // MARK: Answering

    func handle(_ call: DBusMessage, core: ConnectionCore) -> Bool {
        guard let member = call.member, let path = call.path else { return false }
        if let body = lock.withLock({ canned[member] }) {
            _ = try? core.send(DBusMessage.methodReturn(replyingTo: call, body: body))
            return true
        }
        switch (call.interface, member) {
        case (Self.objectManager, "GetManagedObjects") where path == managerPath:
            let hooks = lock.withLock { aroundSnapshot }
            hooks[true]?(self, core)
            _ = try? core.send(DBusMessage.methodReturn(replyingTo: call, body: [objects.dbusValue]))
            hooks[false]?(self, core)
        case (Self.properties, "Get"):
            guard let (interface, name) = try? call.decodeArguments(as: String.self, String.self) else {
                return fail(call, core, "org.freedesktop.DBus.Error.InvalidArgs", "expected (ss)")
            }
            switch lookUp(path, interface) {
            case .success(let properties):
                guard let value = properties[name] else {
                    return fail(call, core, "org.freedesktop.DBus.Error.UnknownProperty", "no property \(name)")
                }
                _ = try? core.send(DBusMessage.methodReturn(replyingTo: call, body: [.variant(value)]))
            case .failure(let error):
                return fail(call, core, error.name, error.message)
            }
        case (Self.properties, "GetAll"):
            guard let interface = try? call.decodeArgument(String.self, at: 0) else {
                return fail(call, core, "org.freedesktop.DBus.Error.InvalidArgs", "expected (s)")
            }
            switch lookUp(path, interface) {
            case .success(let properties):
                _ = try? core.send(DBusMessage.methodReturn(replyingTo: call, body: [properties.dbusValue]))
            case .failure(let error):
                return fail(call, core, error.name, error.message)
            }
        case (Self.properties, "Set"):
            guard let (interface, name, value) = try? call.decodeArguments(as: String.self, String.self, DBusValue.self)
            else {
                return fail(call, core, "org.freedesktop.DBus.Error.InvalidArgs", "expected (ssv)")
            }
            switch lookUp(path, interface) {
            case .success(let properties):
                guard properties[name] != nil else {
                    return fail(call, core, "org.freedesktop.DBus.Error.UnknownProperty", "no property \(name)")
                }
                change(path, interface, changed: [name: value], invalidated: [], core: core)
                _ = try? core.send(DBusMessage.methodReturn(replyingTo: call))
            case .failure(let error):
                return fail(call, core, error.name, error.message)
            }
        default:
            return false
        }
        return true
    }

    private struct Failure: Error {
        let name: String
        let message: String
    }

    private func lookUp(_ path: DBusObjectPath, _ interface: String) -> Result<[String: DBusValue], Failure> {
        lock.withLock {
            guard let object = state[path] else {
                return .failure(Failure(name: "org.freedesktop.DBus.Error.UnknownObject", message: "no object \(path)"))
            }
            guard let properties = object[interface] else {
                return .failure(
                    Failure(name: "org.freedesktop.DBus.Error.UnknownInterface", message: "no interface \(interface)"))
            }
            return .success(properties)
        }
    }

    private func fail(_ call: DBusMessage, _ core: ConnectionCore, _ name: String, _ message: String) -> Bool {
        if let reply = try? DBusMessage.error(replyingTo: call, name: name, message: message) {
            _ = try? core.send(reply)
        }
        return true
    }

    // MARK: Mutating (loop thread: state and signal together)

    func add(_ path: DBusObjectPath, _ interfaces: [String: [String: DBusValue]], core: ConnectionCore) {
        lock.withLock { state[path, default: [:]].merge(interfaces) { _, new in new } }
        send(
            core, path: managerPath, interface: Self.objectManager, member: "InterfacesAdded",
            [.objectPath(path), interfaces.dbusValue])
    }

    func remove(_ path: DBusObjectPath, _ interfaces: [String], core: ConnectionCore) {
        lock.withLock {
            for interface in interfaces {
                state[path]?[interface] = nil
            }
            if state[path]?.isEmpty == true { state[path] = nil }
        }
        send(
            core, path: managerPath, interface: Self.objectManager, member: "InterfacesRemoved",
            [.objectPath(path), interfaces.dbusValue])
    }

    func change(
        _ path: DBusObjectPath, _ interface: String, changed: [String: DBusValue], invalidated: [String],
        core: ConnectionCore
    ) {
        lock.withLock {
            state[path]?[interface]?.merge(changed) { _, new in new }
            for name in invalidated {
                state[path]?[interface]?[name] = nil
            }
        }
        send(
            core, path: path, interface: Self.properties, member: "PropertiesChanged",
            [.string(interface), .stringVariantDictionary(changed), invalidated.dbusValue])
    }

    private func send(
        _ core: ConnectionCore, path: DBusObjectPath, interface: String, member: String, _ body: [DBusValue]
    ) {
        guard let signal = try? DBusMessage.signal(path: path, interface: interface, member: member, body: body) else {
            Issue.record("could not build \(member)")
            return
        }
        _ = try? core.send(signal)
    }

    /// Runs `body` on the service's loop thread (where its mutations belong).
    func mutate(_ body: @escaping @Sendable (FakeObjectService, ConnectionCore) -> Void) {
        connection.core.perform { [self] core in body(self, core) }
    }

    // MARK: Random mutations (the race test)

    static let meta = (try? DBusObjectPath("/tree/meta")) ?? .root
    static let metaInterface = "com.example.Meta"

    /// One pseudo-random mutation of the objects below the manager (adding or removing objects or
    /// interfaces, changing or invalidating properties), then the meta object's `Generation` + 1.
    func randomMutation(core: ConnectionCore) {
        let (objects, roll, counter) = lock.withLock {
            () -> ([DBusObjectPath: [String: [String: DBusValue]]], UInt64, Int) in
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            nextObject += 1
            return (state, seed >> 33, nextObject)
        }
        let paths = objects.keys.filter { $0 != Self.meta }.sorted()
        let pick = paths.isEmpty ? nil : paths[Int(roll >> 8) % paths.count]
        // Adds while there are few objects, else mostly removes and changes.
        var operation = roll % 6
        if pick == nil { operation = 0 }
        if operation <= 1, paths.count >= 30 { operation = 2 }
        switch operation {
        case 0, 1:
            if let path = try? DBusObjectPath("/tree/o\(counter)") {
                add(
                    path,
                    [
                        "com.example.A": ["Value": .int32(Int32(counter)), "Name": .string("o\(counter)")],
                        "com.example.B": ["Flag": .boolean(counter % 2 == 0)],
                    ],
                    core: core)
            }
        case 2:
            if let pick { remove(pick, (objects[pick] ?? [:]).keys.sorted(), core: core) }
        case 3:
            if let pick {
                if objects[pick]?["com.example.B"] != nil {
                    remove(pick, ["com.example.B"], core: core)
                } else {
                    add(pick, ["com.example.B": ["Flag": .boolean(true)]], core: core)
                }
            }
        case 4:
            if let pick {
                change(pick, "com.example.A", changed: ["Value": .int32(Int32(counter))], invalidated: [], core: core)
            }
        default:
            if let pick { change(pick, "com.example.A", changed: [:], invalidated: ["Name"], core: core) }
        }
        let generation = lock.withLock { state[Self.meta]?[Self.metaInterface]?["Generation"]?.uint32 ?? 0 }
        change(
            Self.meta, Self.metaInterface, changed: ["Generation": .uint32(generation + 1)], invalidated: [], core: core
        )
    }
}
