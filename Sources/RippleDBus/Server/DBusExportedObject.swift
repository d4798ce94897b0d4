import Ripple

/// An object a ``DBusConnection`` exports at a path: the interfaces it implements, their methods, and the
/// values of their properties, which the object stores.
///
/// ```swift
/// let adapter = try DBusExportedObject(path: DBusObjectPath("/org/bluez/hci0"), interfaces: [
///     DBusInterface(name: "org.bluez.Adapter1",
///         methods: [DBusMethod(name: "StartDiscovery") { _ in [] }],
///         properties: [DBusProperty(name: "Powered", access: .readWrite, initialValue: .boolean(false))])
/// ])
/// try connection.export(adapter)
/// try adapter.setProperty("Powered", of: "org.bluez.Adapter1", to: .boolean(true))  // PropertiesChanged
/// ```
///
/// ## Threading and order
/// Every method is safe from any thread. While the object is exported, what it emits (property changes,
/// signals, `InterfacesAdded`/`InterfacesRemoved`) goes on the wire in the order the calls that caused it
/// were made — across threads, the order in which they took effect — and replies to method calls take
/// their place in that same order. While it is not exported, changes only update the stored values.
///
/// An object is exported on at most one connection at a time.
public final class DBusExportedObject: Sendable {
    /// Where the object lives.
    public let path: DBusObjectPath

    private let lock = Lock()
    /// The interfaces, in the order they were added, with their property values.
    private nonisolated(unsafe) var slots: [InterfaceSlot]
    /// The connection exporting the object, while it does.
    private nonisolated(unsafe) var link: ExportLink?

    /// An object at `path` implementing `interfaces` (in that order).
    ///
    /// - Parameters:
    ///   - path: the object's path.
    ///   - interfaces: its interfaces.
    /// - Throws: ``DBusError/invalidArgument(_:)`` when an interface is invalid (see ``DBusInterface``) or two have the
    ///   same name.
    public init(path: DBusObjectPath, interfaces: [DBusInterface] = []) throws(DBusError) {
        self.path = path
        var slots: [InterfaceSlot] = []
        for interface in interfaces {
            try interface.validate()
            guard !slots.contains(where: { $0.interface.name == interface.name }) else {
                throw .invalidArgument("the object \(path) has the interface \(interface.name) twice")
            }
            slots.append(InterfaceSlot(interface))
        }
        self.slots = slots
    }

    // MARK: Interfaces

    /// The names of the object's interfaces, in the order they were added (the standard ones left out).
    public var interfaceNames: [String] {
        lock.withLock { slots.map(\.interface.name) }
    }

    /// The interface `name` as it was added, or nil.
    ///
    /// - Parameter name: the interface's name.
    /// - Returns: the interface, or nil.
    public func interface(named name: String) -> DBusInterface? {
        lock.withLock { slots.first { $0.interface.name == name }?.interface }
    }

    /// Whether a connection exports the object now.
    public var isExported: Bool {
        lock.withLock { link?.core != nil }
    }

    /// Adds `interface`, its properties at their initial values. While exported, emits
    /// `InterfacesAdded` (with the interface's readable properties) from every object manager above the
    /// object.
    ///
    /// - Parameter interface: the interface.
    /// - Throws: ``DBusError/invalidArgument(_:)`` when the interface is invalid (see ``DBusInterface``) or the object
    ///   already has one of that name.
    public func addInterface(_ interface: DBusInterface) throws(DBusError) {
        try interface.validate()
        try withEmissionLocks { registry throws(DBusError) in
            guard !slots.contains(where: { $0.interface.name == interface.name }) else {
                throw .invalidArgument("the object \(path) already has the interface \(interface.name)")
            }
            let slot = InterfaceSlot(interface)
            slots.append(slot)
            registry?.appendInterfacesAddedLocked(path: path, interfaces: [(slot.interface.name, slot.readableValues)])
        }
    }

    /// Removes the interface `name` and its properties; returns whether the object had it. While
    /// exported, emits `InterfacesRemoved` from every object manager above the object.
    ///
    /// - Parameter name: the interface's name.
    /// - Returns: whether the object had it.
    @discardableResult
    public func removeInterface(named name: String) -> Bool {
        withEmissionLocks { registry in
            guard let index = slots.firstIndex(where: { $0.interface.name == name }) else { return false }
            slots.remove(at: index)
            registry?.appendInterfacesRemovedLocked(path: path, interfaces: [name])
            return true
        }
    }

    // MARK: Properties

    /// The value of the property `name` of `interface`, or nil when the object has no such property.
    ///
    /// - Parameters:
    ///   - name: the property's name.
    ///   - interface: its interface.
    /// - Returns: the value, or nil.
    public func property(_ name: String, of interface: String) -> DBusValue? {
        lock.withLock { slots.first { $0.interface.name == interface }?.values[name] }
    }

    /// Sets the property `name` of `interface` to `value`. While exported and when the value changed,
    /// emits `PropertiesChanged` as the property declares (the value, or its name as invalidated, or
    /// nothing).
    ///
    /// - Parameters:
    ///   - name: the property's name.
    ///   - interface: its interface.
    ///   - value: the new value.
    /// - Throws: ``DBusError/invalidArgument(_:)`` when the object has no such property or `value` has another type (or
    ///   cannot be written); nothing changes then.
    public func setProperty(_ name: String, of interface: String, to value: DBusValue) throws(DBusError) {
        try updateProperties(of: interface, [name: value])
    }

    /// Sets several properties of `interface` at once. While exported, emits one `PropertiesChanged` for
    /// those whose value changed (names in order), as each declares.
    ///
    /// - Parameters:
    ///   - interface: the interface.
    ///   - values: the new values by property name.
    /// - Throws: ``DBusError/invalidArgument(_:)`` when a property is unknown or a value has the wrong type; nothing
    ///   changes then.
    public func updateProperties(of interface: String, _ values: [String: DBusValue]) throws(DBusError) {
        _ = try DBusBodyWriter.validate(Array(values.values))
        try withEmissionLocks { registry throws(DBusError) in
            guard let index = slots.firstIndex(where: { $0.interface.name == interface }) else {
                throw .invalidArgument("the object \(path) has no interface \(interface)")
            }
            var declared: [(DBusProperty, DBusValue)] = []
            for (name, value) in values.sorted(by: { $0.key < $1.key }) {
                guard let property = slots[index].property(named: name) else {
                    throw .invalidArgument("the interface \(interface) of \(path) has no property \(name)")
                }
                guard value.type == property.type else {
                    throw .invalidArgument(
                        "the property \(name) of \(interface) has type '\(property.type.signature)', not '\(value.type.signature)'"
                    )
                }
                declared.append((property, value))
            }
            var changed: [String: DBusValue] = [:]
            var invalidated: [String] = []
            for (property, value) in declared where slots[index].values[property.name] != value {
                slots[index].values[property.name] = value
                switch property.changeEmission {
                case .emitsChange: changed[property.name] = value
                case .invalidates: invalidated.append(property.name)
                case .none: break
                }
            }
            guard let registry, !changed.isEmpty || !invalidated.isEmpty else { return }
            registry.appendLocked(
                signal: .propertiesChanged, path: path,
                body: [
                    .string(interface), .stringVariantDictionary(changed),
                    .array(.string, invalidated.map(DBusValue.string)),
                ])
        }
    }

    /// Removes the value of the property `name` of `interface`: until it is set again, `Get` answers
    /// `org.freedesktop.DBus.Error.UnknownProperty` and `GetAll` and the object manager leave it out. While
    /// exported and when it had a value, emits `PropertiesChanged` listing it as invalidated (unless the
    /// property emits no changes). Returns whether it had a value.
    ///
    /// - Parameters:
    ///   - name: the property's name.
    ///   - interface: its interface.
    /// - Returns: whether it had a value.
    /// - Throws: ``DBusError/invalidArgument(_:)`` when the object has no such property.
    @discardableResult
    public func invalidateProperty(_ name: String, of interface: String) throws(DBusError) -> Bool {
        try withEmissionLocks { registry throws(DBusError) -> Bool in
            guard let index = slots.firstIndex(where: { $0.interface.name == interface }) else {
                throw .invalidArgument("the object \(path) has no interface \(interface)")
            }
            guard let property = slots[index].property(named: name) else {
                throw .invalidArgument("the interface \(interface) of \(path) has no property \(name)")
            }
            guard slots[index].values.removeValue(forKey: name) != nil else { return false }
            guard let registry, property.changeEmission != .none else { return true }
            registry.appendLocked(
                signal: .propertiesChanged, path: path,
                body: [.string(interface), .stringVariantDictionary([:]), .array(.string, [.string(name)])])
            return true
        }
    }

    // MARK: Signals

    /// Emits the signal `interface.member` from the object with `arguments`, when exported (else does
    /// nothing). The signal need not be declared. Both names are checked on every call: a signal emitted
    /// often is cheaper by its ``DBusSignalName`` (``emitSignal(_:arguments:)``).
    ///
    /// - Parameters:
    ///   - interface: the signal's interface.
    ///   - member: the signal's name.
    ///   - arguments: its arguments.
    /// - Throws: ``DBusError/invalidArgument(_:)`` for an invalid interface or member name or a value that cannot be
    ///   written.
    public func emitSignal(interface: String, member: String, arguments: [DBusValue] = []) throws(DBusError) {
        try emitSignal(DBusSignalName(interface: interface, member: member), arguments: arguments)
    }

    /// Emits the signal `name` from the object with `arguments`, when exported (else does nothing), without
    /// checking its names again. The signal need not be declared.
    ///
    /// - Parameters:
    ///   - name: the signal's interface and member, validated when it was made.
    ///   - arguments: its arguments.
    /// - Throws: ``DBusError/invalidArgument(_:)`` for a value that cannot be written.
    public func emitSignal(_ name: DBusSignalName, arguments: [DBusValue] = []) throws(DBusError) {
        let encoded = try EncodedMessage(signal: name, path: path, body: arguments)
        withEmissionLocks { registry in
            registry?.appendLocked(encoded)
        }
    }

    // MARK: Locking

    /// Runs `body` on the object's state with the locks emitting needs: while exported, the registry's lock
    /// then the object's (so that what `body` appends to the registry's outbox keeps the order of the
    /// changes), and sends what was appended once both are released; else the object's lock alone, and
    /// `body` gets nil.
    private func withEmissionLocks<R, E: Error>(_ body: (ObjectRegistry?) throws(E) -> R) throws(E) -> R {
        while true {
            let current = lock.withLock { link }
            if let current, let core = current.core {
                let registry = core.objectRegistry
                let outcome: R? = try registry.lock.withLock { () throws(E) -> R? in
                    try lock.withLock { () throws(E) -> R? in
                        guard link === current else { return nil }
                        return try body(registry)
                    }
                }
                if let outcome {
                    registry.flush(core: core)
                    return outcome
                }
            } else {
                let outcome: R? = try lock.withLock { () throws(E) -> R? in
                    guard link === current else { return nil }
                    return try body(nil)
                }
                if let outcome { return outcome }
            }
        }
    }

    // MARK: For the registry

    /// Marks the object exported through `core` and announces it (registry lock held).
    ///
    /// Throws ``DBusError/invalidArgument(_:)`` when another connection exports it.
    func attachLocked(to core: ConnectionCore, registry: ObjectRegistry) throws(DBusError) {
        try lock.withLock { () throws(DBusError) in
            if link?.core != nil {
                throw .invalidArgument("the object \(path) is already exported")
            }
            link = ExportLink(core: core)
            registry.appendInterfacesAddedLocked(
                path: path, interfaces: slots.map { ($0.interface.name, $0.readableValues) })
        }
    }

    /// Marks the object no longer exported through `core` and announces it (registry lock held).
    func detachLocked(from core: ConnectionCore, registry: ObjectRegistry) {
        lock.withLock {
            guard link?.core === core else { return }
            link = nil
            registry.appendInterfacesRemovedLocked(path: path, interfaces: slots.map(\.interface.name))
        }
    }

    /// Detaches the object from `core` without announcing it (the connection is closing).
    func detach(from core: ConnectionCore) {
        lock.withLock {
            if link?.core === core { link = nil }
        }
    }

    /// The interfaces, for introspection.
    var interfaces: [DBusInterface] {
        lock.withLock { slots.map(\.interface) }
    }

    /// Each interface with its readable properties' values (the object manager's view).
    var readableValues: [(String, [String: DBusValue])] {
        lock.withLock { slots.map { ($0.interface.name, $0.readableValues) } }
    }

    /// What a call of `member` (of `interface`, or of any interface when nil) resolves to.
    func resolveMethod(interface: String?, member: String) -> MethodResolution {
        lock.withLock {
            if let interface {
                guard let slot = slots.first(where: { $0.interface.name == interface }) else {
                    return .unknownInterface
                }
                guard let method = slot.interface.methods.first(where: { $0.name == member }) else {
                    return .unknownMethod
                }
                return .found(method, interface: interface)
            }
            for slot in slots {
                if let method = slot.interface.methods.first(where: { $0.name == member }) {
                    return .found(method, interface: slot.interface.name)
                }
            }
            return .unknownMethod
        }
    }

    /// The value a remote `Get` of `name` in `interface` (any interface when empty) answers.
    func remoteGet(interface: String, name: String) -> Result<DBusValue, DBusError> {
        lock.withLock {
            switch findProperty(interface: interface, name: name) {
            case .failure(let error):
                return .failure(error)
            case .success((let index, let property)):
                guard property.access.isReadable else {
                    return .failure(
                        .remote(
                            name: DBusStandardError.accessDenied,
                            message: "The property \(name) of \(interface) is not readable"))
                }
                guard let value = slots[index].values[name] else {
                    return .failure(
                        .remote(name: DBusStandardError.unknownProperty, message: "No property \(name) in \(interface)")
                    )
                }
                return .success(value)
            }
        }
    }

    /// The readable properties a remote `GetAll` of `interface` (all interfaces when empty) answers.
    func remoteGetAll(interface: String) -> Result<[String: DBusValue], DBusError> {
        lock.withLock {
            if interface.isEmpty {
                var all: [String: DBusValue] = [:]
                for slot in slots {
                    all.merge(slot.readableValues) { first, _ in first }
                }
                return .success(all)
            }
            if let slot = slots.first(where: { $0.interface.name == interface }) {
                return .success(slot.readableValues)
            }
            if DBusStandardInterface.all.contains(interface) {
                return .success([:])
            }
            return .failure(
                .remote(name: DBusStandardError.unknownInterface, message: "No interface \(interface) at \(path)"))
        }
    }

    /// The interface and declaration of a property a remote `Set` may write with a value of `type`.
    func remoteSetTarget(interface: String, name: String, type: DBusType) -> Result<(String, DBusProperty), DBusError> {
        lock.withLock {
            switch findProperty(interface: interface, name: name) {
            case .failure(let error):
                return .failure(error)
            case .success((let index, let property)):
                guard property.access.isWritable else {
                    return .failure(
                        .remote(
                            name: DBusStandardError.propertyReadOnly,
                            message: "The property \(name) of \(interface) is read-only"))
                }
                guard type == property.type else {
                    return .failure(
                        .remote(
                            name: DBusStandardError.invalidArgs,
                            message:
                                "The property \(name) has type '\(property.type.signature)', not '\(type.signature)'"))
                }
                return .success((slots[index].interface.name, property))
            }
        }
    }

    /// Finds a property (lock held).
    private func findProperty(interface: String, name: String) -> Result<(Int, DBusProperty), DBusError> {
        if interface.isEmpty {
            for (index, slot) in slots.enumerated() {
                if let property = slot.property(named: name) { return .success((index, property)) }
            }
            return .failure(.remote(name: DBusStandardError.unknownProperty, message: "No property \(name) at \(path)"))
        }
        guard let index = slots.firstIndex(where: { $0.interface.name == interface }) else {
            if DBusStandardInterface.all.contains(interface) {
                return .failure(
                    .remote(name: DBusStandardError.unknownProperty, message: "No property \(name) in \(interface)"))
            }
            return .failure(
                .remote(name: DBusStandardError.unknownInterface, message: "No interface \(interface) at \(path)"))
        }
        guard let property = slots[index].property(named: name) else {
            return .failure(
                .remote(name: DBusStandardError.unknownProperty, message: "No property \(name) in \(interface)"))
        }
        return .success((index, property))
    }
}

/// What a method call resolves to on an object.
enum MethodResolution {
    case found(DBusMethod, interface: String)
    case unknownInterface
    case unknownMethod
}

/// The connection exporting an object: weak, so that an exported object does not keep its connection alive
/// (the connection's registry keeps the object).
final class ExportLink: Sendable {
    weak let core: ConnectionCore?

    init(core: ConnectionCore) {
        self.core = core
    }
}

/// One interface of an object with its property values.
struct InterfaceSlot {
    let interface: DBusInterface
    var values: [String: DBusValue]

    init(_ interface: DBusInterface) {
        self.interface = interface
        var values: [String: DBusValue] = [:]
        for property in interface.properties {
            if let initialValue = property.initialValue {
                values[property.name] = initialValue
            }
        }
        self.values = values
    }

    func property(named name: String) -> DBusProperty? {
        interface.properties.first { $0.name == name }
    }

    /// The values of the readable properties.
    var readableValues: [String: DBusValue] {
        var result: [String: DBusValue] = [:]
        for property in interface.properties where property.access.isReadable {
            result[property.name] = values[property.name]
        }
        return result
    }
}
