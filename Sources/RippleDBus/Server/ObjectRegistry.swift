import Ripple

/// The objects and object managers a connection exports, and the outbox through which everything the
/// server side sends goes: the ``ConnectionCore/methodCallHandler`` of every connection.
///
/// ## Order
/// Whatever the server side sends — signals of exported objects, `PropertiesChanged`, `InterfacesAdded`
/// and `InterfacesRemoved`, replies — is appended to the outbox with the registry's lock held, together
/// with the change it reports; the loop thread sends the outbox in order. So the order on the wire is the
/// order in which the changes took effect, from whichever threads. On the loop thread the outbox is sent
/// at once, so that it keeps its place among what the same code sends through the connection directly.
///
/// ## Locks
/// The registry's lock, then an object's (never the other way round); no user code runs under either.
/// Method handlers run on the loop thread, outside both.
final class ObjectRegistry: MethodCallHandling, Sendable {
    /// Guards the state below; objects take it (before their own) to append what they emit.
    let lock = Lock()
    private nonisolated(unsafe) var objects: [DBusObjectPath: DBusExportedObject] = [:]
    private nonisolated(unsafe) var managers: Set<DBusObjectPath> = []
    private nonisolated(unsafe) var outbox: [EncodedMessage] = []
    private nonisolated(unsafe) var drainScheduled = false

    // MARK: Exporting (any thread)

    /// Exports `object` at its path; throws ``DBusError/invalidArgument(_:)`` when the path is taken or
    /// the object is exported elsewhere.
    func export(_ object: DBusExportedObject, core: ConnectionCore) throws(DBusError) {
        try lock.withLock { () throws(DBusError) in
            guard objects[object.path] == nil else {
                throw .invalidArgument("an object is already exported at \(object.path)")
            }
            try object.attachLocked(to: core, registry: self)
            objects[object.path] = object
        }
        flush(core: core)
    }

    /// Stops exporting the object at `path`; returns whether there was one.
    func unexport(_ path: DBusObjectPath, core: ConnectionCore) -> Bool {
        let removed = lock.withLock { () -> Bool in
            guard let object = objects.removeValue(forKey: path) else { return false }
            object.detachLocked(from: core, registry: self)
            return true
        }
        if removed { flush(core: core) }
        return removed
    }

    /// Stops exporting every object and manager, without a signal (the connection is closing): what
    /// their handlers hold — often the connection itself — is released with them.
    func removeAll(core: ConnectionCore) {
        let removed = lock.withLock { () -> [DBusExportedObject] in
            defer {
                objects = [:]
                managers = []
                outbox = []
            }
            return Array(objects.values)
        }
        for object in removed { object.detach(from: core) }
    }

    /// The object exported at `path`, if any.
    func object(at path: DBusObjectPath) -> DBusExportedObject? {
        lock.withLock { objects[path] }
    }

    /// Adds an object manager at `path`; throws ``DBusError/invalidArgument(_:)`` when there is one.
    func addManager(at path: DBusObjectPath) throws(DBusError) {
        try lock.withLock { () throws(DBusError) in
            guard managers.insert(path).inserted else {
                throw .invalidArgument("an object manager is already exported at \(path)")
            }
        }
    }

    /// Removes the object manager at `path`; returns whether there was one.
    func removeManager(at path: DBusObjectPath) -> Bool {
        lock.withLock { managers.remove(path) != nil }
    }

    // MARK: The outbox

    /// Appends `message` to the outbox (registry lock held).
    func appendLocked(_ message: EncodedMessage) {
        outbox.append(message)
    }

    /// Encodes and appends the signal `name` from `path` with `body` (registry lock held). Its values were
    /// validated before; a failure here (libdbus out of memory) drops it.
    func appendLocked(signal name: DBusSignalName, path: DBusObjectPath, body: [DBusValue]) {
        guard let encoded = try? EncodedMessage(signal: name, path: path, body: body) else { return }
        outbox.append(encoded)
    }

    /// Appends `InterfacesAdded` for the object at `path` from every manager above it (registry lock held).
    func appendInterfacesAddedLocked(path: DBusObjectPath, interfaces: [(String, [String: DBusValue])]) {
        guard !interfaces.isEmpty else { return }
        let body: [DBusValue] = [.objectPath(path), Self.interfacesDictionary(interfaces)]
        for manager in managers.sorted() where manager.isAncestor(of: path) {
            appendLocked(signal: .interfacesAdded, path: manager, body: body)
        }
    }

    /// Appends `InterfacesRemoved` for the object at `path` from every manager above it (registry lock held).
    func appendInterfacesRemovedLocked(path: DBusObjectPath, interfaces: [String]) {
        guard !interfaces.isEmpty else { return }
        let body: [DBusValue] = [.objectPath(path), .array(.string, interfaces.map(DBusValue.string))]
        for manager in managers.sorted() where manager.isAncestor(of: path) {
            appendLocked(signal: .interfacesRemoved, path: manager, body: body)
        }
    }

    /// `a{sa{sv}}`: interfaces with their properties, in the order given.
    static func interfacesDictionary(_ interfaces: [(String, [String: DBusValue])]) -> DBusValue {
        .dictionary(
            key: .string, value: .dictionary(key: .string, value: .variant),
            interfaces.map { DBusDictionaryEntry(key: .string($0.0), value: .stringVariantDictionary($0.1)) })
    }

    /// Sends what the outbox holds: now on the loop thread, else soon from the loop (any thread, no lock held).
    func flush(core: ConnectionCore) {
        if core.loop.isInLoopThread {
            drain(core: core)
            return
        }
        let schedule = lock.withLock { () -> Bool in
            guard !drainScheduled, !outbox.isEmpty else { return false }
            drainScheduled = true
            return true
        }
        if schedule {
            core.loop.schedule { [self] in drain(core: core) }
        }
    }

    /// Sends the outbox in order (loop thread), or hands it to the connection's server message gate. A closed
    /// connection drops it.
    private func drain(core: ConnectionCore) {
        let batch = lock.withLock { () -> [EncodedMessage] in
            drainScheduled = false
            let batch = outbox
            outbox = []
            return batch
        }
        if let gate = core.serverMessageGate {
            for message in batch {
                // The message was built here from valid values; one that cannot be read back goes out as is.
                if let decoded = try? DBusMessage(reading: message.raw, checkingHeaderNames: false) {
                    gate(DBusServerMessage(message: decoded, encoded: message))
                } else {
                    _ = try? core.send(message)
                }
            }
            return
        }
        for message in batch {
            _ = try? core.send(message)
        }
    }

    // MARK: Replies

    /// Replies `result` to `call` (any thread); see ``replyLocked(to:result:outputSignature:)``.
    func sendReply(
        to call: DBusMessage, result: Result<[DBusValue], DBusError>, outputSignature: DBusSignature?,
        core: ConnectionCore
    ) {
        guard !call.noReplyExpected else { return }
        lock.withLock { replyLocked(to: call, result: result, outputSignature: outputSignature) }
        flush(core: core)
    }

    /// Appends the reply to `call` (registry lock held), unless the caller wants none: the values (which must
    /// have `outputSignature` when given, else `Failed`), or the error (a remote error as itself, others as
    /// `Failed` with their description).
    func replyLocked(to call: DBusMessage, result: Result<[DBusValue], DBusError>, outputSignature: DBusSignature?) {
        guard !call.noReplyExpected else { return }
        if let reply = Self.makeReply(to: call, result: result, outputSignature: outputSignature) {
            outbox.append(reply)
        }
    }

    private static func makeReply(
        to call: DBusMessage, result: Result<[DBusValue], DBusError>, outputSignature: DBusSignature?
    ) -> EncodedMessage? {
        switch result {
        case .success(let values):
            let signature = DBusSignature(types: values.map(\.type))
            if let outputSignature, signature != outputSignature {
                return makeError(
                    to: call, name: DBusStandardError.failed,
                    message:
                        "The method returned values of signature '\(signature)', not the declared '\(outputSignature)'")
            }
            do {
                return try EncodedMessage(DBusMessage.methodReturn(replyingTo: call, body: values))
            } catch {
                return makeError(
                    to: call, name: DBusStandardError.failed, message: "The method's results cannot be sent: \(error)")
            }
        case .failure(.remote(let name, let message)):
            if let reply = makeError(to: call, name: name, message: message) {
                return reply
            }
            return makeError(to: call, name: DBusStandardError.failed, message: "\(name): \(message)")
        case .failure(let error):
            return makeError(to: call, name: DBusStandardError.failed, message: error.description)
        }
    }

    private static func makeError(to call: DBusMessage, name: String, message: String) -> EncodedMessage? {
        let text = message.contains("\0") ? message.replacingNULs() : message
        guard let reply = try? DBusMessage.error(replyingTo: call, name: name, message: text) else { return nil }
        return try? EncodedMessage(reply)
    }

    private func replyError(to call: DBusMessage, name: String, message: String, core: ConnectionCore) {
        sendReply(to: call, result: .failure(.remote(name: name, message: message)), outputSignature: nil, core: core)
    }

    // MARK: Method calls (loop thread)

    /// Answers `call` when it is for an exported object, an object manager or a node above them.
    func handle(_ call: DBusMessage, core: ConnectionCore) -> Bool {
        guard let path = call.path, let member = call.member else { return false }
        let (object, isManager, children) = lock.withLock {
            (objects[path], managers.contains(path), childNodesLocked(of: path))
        }
        let interface = call.interface
        if interface == DBusStandardInterface.introspectable
            || (interface == nil && member == "Introspect" && object?.resolvesMethod(member) != true)
        {
            guard object != nil || isManager || !children.isEmpty else { return false }
            introspect(call, member: member, object: object, isManager: isManager, children: children, core: core)
            return true
        }
        if isManager,
            interface == DBusStandardInterface.objectManager
                || (interface == nil && member == "GetManagedObjects" && object?.resolvesMethod(member) != true)
        {
            getManagedObjects(call, member: member, manager: path, core: core)
            return true
        }
        guard let object else {
            guard isManager else { return false }
            if interface == nil {
                replyError(
                    to: call, name: DBusStandardError.unknownMethod, message: "No method \(member) at \(path)",
                    core: core)
            } else {
                replyError(
                    to: call, name: DBusStandardError.unknownInterface,
                    message: "No interface \(interface ?? "") at \(path)", core: core)
            }
            return true
        }
        if interface == DBusStandardInterface.properties {
            handleProperties(call, member: member, object: object, core: core)
            return true
        }
        if interface == DBusStandardInterface.objectManager {
            replyError(
                to: call, name: DBusStandardError.unknownInterface,
                message: "No interface \(DBusStandardInterface.objectManager) at \(path)", core: core)
            return true
        }
        switch object.resolveMethod(interface: interface, member: member) {
        case .found(let method, let interface):
            invoke(method, interface: interface, call: call, object: object, core: core)
        case .unknownInterface:
            replyError(
                to: call, name: DBusStandardError.unknownInterface,
                message: "No interface \(interface ?? "") at \(path)",
                core: core)
        case .unknownMethod:
            if interface == nil, ["Get", "GetAll", "Set"].contains(member) {
                handleProperties(call, member: member, object: object, core: core)
            } else {
                replyError(
                    to: call, name: DBusStandardError.unknownMethod,
                    message: "No method \(member) in \(interface ?? "any interface") at \(path)", core: core)
            }
        }
        return true
    }

    /// Calls the handler of `method` for `call` once its arguments have the declared signature.
    private func invoke(
        _ method: DBusMethod, interface: String, call: DBusMessage, object: DBusExportedObject, core: ConnectionCore
    ) {
        guard call.signature == method.inputSignature else {
            replyError(
                to: call, name: DBusStandardError.invalidArgs,
                message:
                    "The method \(interface).\(method.name) takes arguments of signature '\(method.inputSignature)', not '\(call.signature)'",
                core: core)
            return
        }
        let methodCall = DBusMethodCall(message: call, object: object, interface: interface)
        switch method.handler {
        case .immediate(let handler):
            let result: Result<[DBusValue], DBusError>
            do {
                result = .success(try handler(methodCall))
            } catch {
                result = .failure(error)
            }
            sendReply(to: call, result: result, outputSignature: method.outputSignature, core: core)
        case .deferred(let handler):
            handler(DBusMethodInvocation(call: methodCall, outputSignature: method.outputSignature, core: core))
        }
    }

    // MARK: org.freedesktop.DBus.Properties

    private func handleProperties(_ call: DBusMessage, member: String, object: DBusExportedObject, core: ConnectionCore)
    {
        let expected: String
        switch member {
        case "Get": expected = "ss"
        case "GetAll": expected = "s"
        case "Set": expected = "ssv"
        default:
            replyError(
                to: call, name: DBusStandardError.unknownMethod,
                message: "No method \(member) in \(DBusStandardInterface.properties)", core: core)
            return
        }
        guard call.signature.rawValue == expected else {
            replyError(
                to: call, name: DBusStandardError.invalidArgs,
                message:
                    "\(DBusStandardInterface.properties).\(member) takes arguments of signature '\(expected)', not '\(call.signature)'",
                core: core)
            return
        }
        let interface = call.body[0].string ?? ""
        switch member {
        case "Get":
            let name = call.body[1].string ?? ""
            // The value is read and its reply appended under the registry's lock: no change made after the
            // read can be announced before the reply.
            lock.withLock {
                replyLocked(
                    to: call, result: object.remoteGet(interface: interface, name: name).map { [.variant($0)] },
                    outputSignature: nil)
            }
            flush(core: core)
        case "GetAll":
            lock.withLock {
                replyLocked(
                    to: call, result: object.remoteGetAll(interface: interface).map { [.stringVariantDictionary($0)] },
                    outputSignature: nil)
            }
            flush(core: core)
        default:
            let name = call.body[1].string ?? ""
            let value = call.body[2].variantValue ?? call.body[2]
            setProperty(call, interface: interface, name: name, value: value, object: object, core: core)
        }
    }

    private func setProperty(
        _ call: DBusMessage, interface: String, name: String, value: DBusValue, object: DBusExportedObject,
        core: ConnectionCore
    ) {
        let result: Result<[DBusValue], DBusError>
        switch object.remoteSetTarget(interface: interface, name: name, type: value.type) {
        case .failure(let error):
            result = .failure(error)
        case .success((let interfaceName, let property)):
            do {
                try property.validateWrite?(value)
                try object.setProperty(name, of: interfaceName, to: value)
                result = .success([])
            } catch {
                result = .failure(error)
            }
        }
        sendReply(to: call, result: result, outputSignature: nil, core: core)
    }

    // MARK: org.freedesktop.DBus.ObjectManager

    private func getManagedObjects(_ call: DBusMessage, member: String, manager: DBusObjectPath, core: ConnectionCore) {
        guard
            acceptsNoArgumentCall(
                call, member: member, expected: "GetManagedObjects",
                interface: DBusStandardInterface.objectManager, core: core)
        else { return }
        // Read and replied under the registry's lock: the snapshot and the signals around it are in order.
        lock.withLock {
            let entries = objects.filter { manager.isAncestor(of: $0.key) }.sorted { $0.key < $1.key }.map {
                DBusDictionaryEntry(key: .objectPath($0.key), value: Self.interfacesDictionary($0.value.readableValues))
            }
            let value = DBusValue.dictionary(
                key: .objectPath, value: .dictionary(key: .string, value: .dictionary(key: .string, value: .variant)),
                entries)
            replyLocked(to: call, result: .success([value]), outputSignature: nil)
        }
        flush(core: core)
    }

    /// Whether `call` is the argument-less method `expected` of a standard `interface`; if not, replies
    /// `UnknownMethod` (another member) or `InvalidArgs` (arguments given) and returns false.
    private func acceptsNoArgumentCall(
        _ call: DBusMessage, member: String, expected: String, interface: String, core: ConnectionCore
    ) -> Bool {
        guard member == expected else {
            replyError(
                to: call, name: DBusStandardError.unknownMethod, message: "No method \(member) in \(interface)",
                core: core)
            return false
        }
        guard call.body.isEmpty else {
            replyError(
                to: call, name: DBusStandardError.invalidArgs,
                message: "\(expected) takes no arguments, not '\(call.signature)'", core: core)
            return false
        }
        return true
    }

    // MARK: org.freedesktop.DBus.Introspectable

    private func introspect(
        _ call: DBusMessage, member: String, object: DBusExportedObject?, isManager: Bool, children: [String],
        core: ConnectionCore
    ) {
        guard
            acceptsNoArgumentCall(
                call, member: member, expected: "Introspect",
                interface: DBusStandardInterface.introspectable, core: core)
        else { return }
        let xml = DBusIntrospection.document(
            interfaces: object?.interfaces, isManager: isManager, children: children)
        sendReply(to: call, result: .success([.string(xml)]), outputSignature: nil, core: core)
    }

    /// The names of the nodes right below `path` that lead to exported objects or managers (lock held).
    private func childNodesLocked(of path: DBusObjectPath) -> [String] {
        let depth = path.elements.count
        var names = Set<String>()
        for candidate in objects.keys where path.isAncestor(of: candidate) {
            names.insert(candidate.elements[depth])
        }
        for candidate in managers where path.isAncestor(of: candidate) {
            names.insert(candidate.elements[depth])
        }
        return names.sorted()
    }
}

extension DBusExportedObject {
    /// Whether one of the object's own interfaces has a method `member`.
    fileprivate func resolvesMethod(_ member: String) -> Bool {
        if case .found = resolveMethod(interface: nil, member: member) { return true }
        return false
    }
}

extension String {
    /// The string with NUL characters replaced by U+FFFD (D-Bus strings cannot hold NUL).
    fileprivate func replacingNULs() -> String {
        String(String.UnicodeScalarView(unicodeScalars.map { $0 == "\0" ? "\u{FFFD}" : $0 }))
    }
}
