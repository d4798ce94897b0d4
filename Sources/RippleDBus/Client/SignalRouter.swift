/// Routes a connection's incoming signals to its subscriptions, and keeps the bus's match rules and the
/// owners of the well-known names those rules name (loop thread only, like the rest of the core).
///
/// ## Why owners are tracked
/// A signal's sender is always the unique name of the connection that sent it (`:1.7`), never the
/// well-known name a rule may use (`org.bluez`). The bus resolves the well-known name when it routes;
/// to route locally — several subscriptions with different rules share the connection — the router
/// knows each such name's current owner. Per name it adds a match for the bus's `NameOwnerChanged` about
/// it, then asks `GetNameOwner`; only once that answer is in does it add the subscription's own rule. The
/// bus handles one connection's messages in order, so no signal the rule lets through can arrive before
/// the owner is known, and every later change of owner arrives, in order, before any signal from the
/// new owner.
final class SignalRouter: Sendable {
    /// A stream fed with signals.
    struct Route {
        let id: ObjectIdentifier
        let rule: DBusMatchRule
        let receive: (DBusMessage) -> Void
        let close: (DBusError) -> Void
    }

    /// A stream of a name's owners.
    struct OwnerWatcher {
        let update: (String?) -> Void
        let close: (DBusError) -> Void
    }

    /// The owner of one tracked well-known name.
    final class OwnerRecord: Sendable {
        /// The unique name owning it; nil while it has none.
        nonisolated(unsafe) var owner: String? {
            didSet {
                // A bus name has at most 255 bytes; a longer one (which no bus sends) is kept as "", which no
                // sender equals.
                let characters = owner.map { Array($0.utf8CString) } ?? [0]
                guard characters.count <= Self.capacity else {
                    ownerCString[0] = 0
                    return
                }
                ownerCString.update(from: characters, count: characters.count)
            }
        }
        /// ``owner`` as a NUL-terminated C string ("" while there is none), for comparing a message's sender
        /// in place: one buffer for the record's life (rewritten when the owner changes), so that a fast path
        /// keeps its address and reads it per message with no reference counting.
        nonisolated(unsafe) let ownerCString: UnsafeMutablePointer<CChar>
        private static let capacity = 256
        /// Whether `GetNameOwner` has answered.
        nonisolated(unsafe) var known = false
        /// How many routes and owner streams depend on this record.
        nonisolated(unsafe) var users = 0
        /// Work waiting for `known`.
        nonisolated(unsafe) var waiting: [() -> Void] = []
        /// Streams told about each owner change (``DBusConnection/nameOwner(of:)``).
        nonisolated(unsafe) var watchers: [ObjectIdentifier: OwnerWatcher] = [:]

        init() {
            ownerCString = .allocate(capacity: Self.capacity)
            ownerCString.initialize(repeating: 0, count: Self.capacity)
        }

        deinit {
            ownerCString.deallocate()
        }
    }

    // Loop thread only, read per message: the dynamic exclusivity checks are skipped.
    @exclusivity(unchecked) private nonisolated(unsafe) var routes: [Route] = []
    /// Fast paths that take some signals before they are decoded (see ``DBusByteArrayPropertyTap``), each
    /// with the owner record of its sender (held, not looked up by name, per message).
    @exclusivity(unchecked) private nonisolated(unsafe) var taps: [DBusByteArrayPropertyTap] = []
    /// How many active routes use each rule (by its text): `AddMatch` on the first, `RemoveMatch` after the last.
    private nonisolated(unsafe) var ruleUsers: [String: Int] = [:]
    /// Tracked well-known names.
    private nonisolated(unsafe) var owners: [String: OwnerRecord] = [:]
    /// Activations (owner look-ups and `AddMatch` calls) still in flight, and who waits for them all.
    private nonisolated(unsafe) var activationsInFlight = 0
    private nonisolated(unsafe) var settledWaiters: [() -> Void] = []
    /// Whether the connection has closed: later routes end at once.
    private nonisolated(unsafe) var closed = false

    // MARK: Routes

    /// Adds `route`, then makes the bus send what it matches; `activated` runs once with nil when the bus
    /// accepted the rule, or with the error that refused it (the route is then removed).
    /// With `tap`, the route's fast path is installed with it and removed with it.
    func add(
        _ route: Route, core: ConnectionCore, tap: DBusByteArrayPropertyTap? = nil,
        activated: ((DBusError?) -> Void)? = nil
    ) {
        guard !closed else {
            route.close(.disconnected)
            return
        }
        routes.append(route)
        beginActivation()
        let addRule = { [self] in
            guard routes.contains(where: { $0.id == route.id }) else {
                endActivation()
                return
            }
            retainRule(route.rule, core: core) { [self] error in
                if let error {
                    remove(route.id, core: core, dropRule: false)
                    route.close(error)
                }
                activated?(error)
                endActivation()
            }
        }
        if let name = route.rule.wellKnownSender {
            trackOwner(of: name, core: core, then: addRule)
        } else {
            addRule()
        }
        // After `trackOwner`, which made the record of the tap's sender (kept while the route lives); not
        // when the rule was refused at once and the route is gone already.
        if let tap, let record = owners[tap.sender], routes.contains(where: { $0.id == route.id }) {
            tap.owner = record
            taps.append(tap)
        }
    }

    /// How many active routes use the rule with this text (0 once the bus no longer has it).
    func users(of ruleText: String) -> Int {
        ruleUsers[ruleText] ?? 0
    }

    /// Removes the route `id` (its stream ended or was cancelled) and releases what it used.
    func remove(_ id: ObjectIdentifier, core: ConnectionCore, dropRule: Bool = true) {
        guard let index = routes.firstIndex(where: { $0.id == id }) else { return }
        let route = routes.remove(at: index)
        taps.removeAll { $0.id == id }
        if dropRule {
            releaseRule(route.rule, core: core)
        }
        if let name = route.rule.wellKnownSender {
            untrackOwner(of: name, core: core)
        }
    }

    /// Whether any fast path is installed.
    var hasTaps: Bool { !taps.isEmpty }

    /// Offers an undecoded signal to the fast paths; returns whether one took it.
    func deliverToTaps(_ raw: OpaquePointer) -> Bool {
        DBusByteArrayPropertyTap.deliver(raw, to: taps)
    }

    /// Hands `message` to every route whose rule it matches, in the order the routes were added.
    func deliver(_ message: DBusMessage, core: ConnectionCore) {
        if message.sender == DBusMatchRule.busName, message.interface == DBusMatchRule.busName,
            message.member == "NameOwnerChanged"
        {
            noteOwnerChange(message)
        }
        for route in routes where route.rule.matches(message, senderOwner: owner(for: route.rule)) {
            route.receive(message)
        }
    }

    private func owner(for rule: DBusMatchRule) -> String? {
        guard let name = rule.wellKnownSender else { return nil }
        return owners[name]?.owner
    }

    /// Ends every route with `.disconnected`; later routes end at once.
    func closeAll() {
        closed = true
        let ended = routes
        routes = []
        taps = []
        ruleUsers = [:]
        let watchers = owners.values.flatMap { $0.watchers.values }
        owners = [:]
        for route in ended {
            route.close(.disconnected)
        }
        for watcher in watchers {
            watcher.close(.disconnected)
        }
        let waiters = settledWaiters
        settledWaiters = []
        waiters.forEach { $0() }
    }

    // MARK: Match rules

    private func retainRule(_ rule: DBusMatchRule, core: ConnectionCore, completion: @escaping (DBusError?) -> Void) {
        let text = rule.description
        let users = ruleUsers[text, default: 0]
        ruleUsers[text] = users + 1
        guard users == 0 else {
            completion(nil)
            return
        }
        callBus(core: core, member: "AddMatch", argument: text) { [self] result in
            if case .failure(let error) = result {
                // Forget the rule so that a later subscription tries again.
                ruleUsers[text] = nil
                completion(error)
            } else {
                completion(nil)
            }
        }
    }

    private func releaseRule(_ rule: DBusMatchRule, core: ConnectionCore) {
        let text = rule.description
        guard let users = ruleUsers[text] else { return }
        if users > 1 {
            ruleUsers[text] = users - 1
            return
        }
        ruleUsers[text] = nil
        callBus(core: core, member: "RemoveMatch", argument: text) { _ in }
    }

    /// Calls a method of the bus taking one string.
    private func callBus(
        core: ConnectionCore,
        member: String,
        argument: String,
        completion: @escaping (Result<DBusMessage, DBusError>) -> Void
    ) {
        let message: DBusMessage
        do {
            message = try DBusMessage.methodCall(
                destination: DBusMatchRule.busName, path: DBusConnection.busPath,
                interface: DBusMatchRule.busName, member: member, body: [.string(argument)])
        } catch {
            completion(.failure(error))
            return
        }
        _ = core.startCall(message, timeout: .seconds(25), completion: completion)
    }

    // MARK: Name owners

    /// Starts tracking `name`'s owner if it is not tracked yet, and runs `then` once its owner is known.
    func trackOwner(of name: String, core: ConnectionCore, then: @escaping () -> Void) {
        if let record = owners[name] {
            record.users += 1
            if record.known {
                then()
            } else {
                record.waiting.append(then)
            }
            return
        }
        let record = OwnerRecord()
        record.users = 1
        record.waiting.append(then)
        owners[name] = record
        var changes = DBusMatchRule(
            sender: DBusMatchRule.busName, interface: DBusMatchRule.busName, member: "NameOwnerChanged")
        changes.arguments[0] = name
        retainRule(changes, core: core) { [self] _ in
            // Even if the match failed, the current owner is worth knowing; changes then go unseen.
            lookUpOwner(of: name, record: record, core: core)
        }
    }

    private func lookUpOwner(of name: String, record: OwnerRecord, core: ConnectionCore) {
        callBus(core: core, member: "GetNameOwner", argument: name) { result in
            guard !record.known else { return }
            if case .success(let reply) = result, case .string(let owner)? = reply.body.first {
                record.owner = owner
            } else {
                record.owner = nil
            }
            record.known = true
            let waiting = record.waiting
            record.waiting = []
            waiting.forEach { $0() }
            for watcher in record.watchers.values {
                watcher.update(record.owner)
            }
        }
    }

    /// Stops tracking `name` when nothing uses it any more.
    func untrackOwner(of name: String, core: ConnectionCore) {
        guard let record = owners[name] else { return }
        record.users -= 1
        guard record.users <= 0 else { return }
        owners[name] = nil
        var changes = DBusMatchRule(
            sender: DBusMatchRule.busName, interface: DBusMatchRule.busName, member: "NameOwnerChanged")
        changes.arguments[0] = name
        releaseRule(changes, core: core)
    }

    /// Tracks `name` for an owner stream: `watcher` gets the current owner once known, then every change.
    func watchOwner(of name: String, id: ObjectIdentifier, core: ConnectionCore, watcher: OwnerWatcher) {
        guard !closed else {
            watcher.close(.disconnected)
            return
        }
        beginActivation()
        trackOwner(of: name, core: core) { [self] in endActivation() }
        guard let record = owners[name] else { return }
        record.watchers[id] = watcher
        if record.known {
            watcher.update(record.owner)
        }
    }

    /// Stops the owner stream `id`.
    func unwatchOwner(of name: String, id: ObjectIdentifier, core: ConnectionCore) {
        guard let record = owners[name], record.watchers.removeValue(forKey: id) != nil else { return }
        untrackOwner(of: name, core: core)
    }

    private func noteOwnerChange(_ message: DBusMessage) {
        guard message.body.count == 3, case .string(let name) = message.body[0],
            case .string(let newOwner) = message.body[2], let record = owners[name], record.known
        else { return }
        let owner: String? = newOwner.isEmpty ? nil : newOwner
        guard owner != record.owner else { return }
        record.owner = owner
        for watcher in record.watchers.values {
            watcher.update(owner)
        }
    }

    // MARK: Settling

    private func beginActivation() {
        activationsInFlight += 1
    }

    private func endActivation() {
        activationsInFlight -= 1
        guard activationsInFlight == 0, !settledWaiters.isEmpty else { return }
        let waiters = settledWaiters
        settledWaiters = []
        waiters.forEach { $0() }
    }

    /// Runs `body` once every route and owner stream added so far is active (at once if they are).
    func whenSettled(_ body: @escaping () -> Void) {
        if activationsInFlight == 0 || closed {
            body()
        } else {
            settledWaiters.append(body)
        }
    }
}
