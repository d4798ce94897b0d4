import Ripple
import RippleDBus
import RippleLoop

/// How the simulated bluetoothd sends in the shuffled order: everything its exported objects emit passes
/// through here and goes out as BlueZ's GDBus layer (gdbus/object.c) would send it, with the timing of
/// bluetoothd's main loop drawn from a seed (loop-confined: every method runs on the simulator's loop
/// thread, checked).
///
/// GDBus holds each object's `InterfacesAdded`, `PropertiesChanged` and `InterfacesRemoved` and sends them
/// from an idle callback of that object; any other message bluetoothd sends first flushes every held
/// object. So the outbox keeps, per object, what GDBus keeps, and:
/// - holds property changes (coalesced per interface), new interfaces (their properties merged in) and
///   removed interfaces;
/// - runs an "idle phase" a drawn number of loop turns after the first held change: the objects in the
///   order of their latest change (GLib's idle queue), or — as if another client's call were dispatched
///   among those idle callbacks — some of them, then the rest in the order of their first change;
/// - sends a reply, an error or any other signal only after flushing every held object in the order of
///   its first change (`g_dbus_flush`);
/// - before a method call is dispatched, flushes the objects whose idle callbacks a drawn arrival time
///   puts ahead of the call (GDBus dispatches calls from the same idle queue);
/// - sends a characteristic's `Value` change at once with its object's other held properties
///   (`G_DBUS_PROPERTY_CHANGED_FLAG_FLUSH`), never before the characteristic is announced;
/// - sends an object's held signals at once when the object goes (`generic_unregister`), and never
///   announces an interface removed before its `InterfacesAdded` went out;
/// - announces an object's parent (its held `InterfacesAdded`) before the object.
///
/// The seed also draws the simulator's other order choices (``draw(_:)``), in the order they come up, so
/// the same seed and the same events give the same trace.
final class SignalOutbox: Sendable {
    private static let objectManager = "org.freedesktop.DBus.ObjectManager"
    private static let properties = "org.freedesktop.DBus.Properties"
    private static let characteristic = "org.bluez.GattCharacteristic1"

    /// The kinds of choice the seed makes, each drawn from a stream of its own, so that one kind drawn
    /// more or less often (a call that happens to come while signals are held) leaves the others' draws
    /// as they were.
    enum Choice: UInt64, CaseIterable {
        /// How many turns the idle phase waits.
        case idleDelay = 1
        /// Whether another client's call is dispatched among the idle callbacks, and where.
        case idleOrder
        /// Where a call's dispatch falls among the held objects' idle callbacks.
        case callArrival
        /// Whether a CCC write is answered after the first notification.
        case startNotify
        /// Whether a write's notifications come before its answer.
        case writeNotifications
        /// Whether a device is in the tree before any client scans.
        case seenBefore
    }

    private let loop: EventLoop
    private let connection: DBusConnection
    nonisolated(unsafe) private var generators: [Choice: SeededRandom]
    /// What is held, by object.
    nonisolated(unsafe) private var held: [DBusObjectPath: HeldObject] = [:]
    /// Every object's interfaces (announced or held), in the order they were added.
    nonisolated(unsafe) private var interfaces: [DBusObjectPath: [String]] = [:]
    /// Changes taken in so far (numbers the pending list and the idle queue).
    nonisolated(unsafe) private var changes = 0
    /// Loop turns with activity so far: changes of one turn were made by one run of bluetoothd's loop.
    nonisolated(unsafe) private var turn = 0
    nonisolated(unsafe) private var tickScheduled = false
    /// Turns left before the idle phase, while one is due.
    nonisolated(unsafe) private var idleIn: Int?
    /// The member of each call still to be answered, by caller and serial (for the trace).
    nonisolated(unsafe) private var calls: [CallKey: String] = [:]
    /// The latest messages sent, oldest first (at most ``traceLimit``).
    nonisolated(unsafe) private var sent: [SentMessage] = []
    /// How many sent messages the trace keeps.
    static let traceLimit = 4096

    private struct CallKey: Hashable {
        let caller: String
        let serial: UInt32
    }

    /// An outbox for `connection`'s exported objects, drawing from `seed`; ``install()`` puts it in place.
    ///
    /// - Parameters:
    ///   - loop: The simulator's loop.
    ///   - connection: The connection that owns `org.bluez`.
    ///   - seed: The shuffled order's seed.
    init(loop: EventLoop, connection: DBusConnection, seed: UInt64) {
        self.loop = loop
        self.connection = connection
        var generators: [Choice: SeededRandom] = [:]
        for choice in Choice.allCases {
            // Each stream starts from the seed's own stream, advanced by the choice's number.
            var mixer = SeededRandom(seed: seed ^ (choice.rawValue &* 0xD1B5_4A32_D192_ED03))
            generators[choice] = SeededRandom(seed: mixer.next())
        }
        self.generators = generators
    }

    /// Routes the connection's server messages and incoming calls through the outbox (before anything is
    /// exported).
    func install() {
        connection.setServerMessageGate { [weak self] message in self?.take(message) }
        connection.setMethodCallObserver { [weak self] call in self?.callArrives(call) }
    }

    /// Sends what is held and lets the connection send straight again (bluetoothd exits).
    func uninstall() {
        assertOnLoop()
        flushAll()
        connection.setServerMessageGate(nil)
        connection.setMethodCallObserver(nil)
    }

    /// Draws one of the simulator's order choices from the seed's stream for its kind.
    ///
    /// - Parameters:
    ///   - choice: The kind of choice.
    ///   - body: Draws what it needs from the generator.
    /// - Returns: What `body` returns.
    func draw<T>(_ choice: Choice, _ body: (inout SeededRandom) -> T) -> T {
        assertOnLoop()
        var generator = generators[choice] ?? SeededRandom(seed: choice.rawValue)
        defer { generators[choice] = generator }
        return body(&generator)
    }

    /// Runs `action` on the loop `turns` turns from now (at once for 0), so that what happens meanwhile —
    /// the idle phase, calls, timers — comes first.
    ///
    /// - Parameters:
    ///   - turns: How many loop turns to let pass.
    ///   - action: What then runs, on the loop thread.
    func after(turns: Int, _ action: @escaping @Sendable () -> Void) {
        guard turns > 0 else { return action() }
        loop.schedule { [weak self] in
            guard let self else { return }
            self.after(turns: turns - 1, action)
        }
    }

    /// Flushes every held object in the order of its first change, as GDBus does before anything else
    /// bluetoothd sends (its own method calls included).
    func flushAll() {
        assertOnLoop()
        for path in held.sorted(by: { $0.value.firstChange < $1.value.firstChange }).map(\.key) {
            flush(path)
        }
        if held.isEmpty { idleIn = nil }
    }

    // MARK: What the connection hands over

    private func assertOnLoop() {
        precondition(loop.isInLoopThread, "the simulator's signal outbox runs on its loop thread")
    }

    private func take(_ outgoing: DBusServerMessage) {
        assertOnLoop()
        noteActivity()
        let message = outgoing.message
        if message.kind == .signal, let path = message.path {
            switch (message.interface, message.member) {
            case (Self.objectManager, "InterfacesAdded"):
                if let object = message.body.first?.objectPath,
                    let entries = message.body.dropFirst().first?.dictionaryEntries, message.body.count == 2
                {
                    let announced = entries.compactMap { entry -> HeldObject.Announcement? in
                        guard let name = entry.key.string, let values = entry.value.stringVariantDictionary else {
                            return nil
                        }
                        return HeldObject.Announcement(name: name, properties: values)
                    }
                    if announced.count == entries.count {
                        return interfacesAdded(by: path, object: object, announced)
                    }
                }
            case (Self.objectManager, "InterfacesRemoved"):
                if let object = message.body.first?.objectPath, message.body.count == 2,
                    let names = message.body[1].arrayElements?.compactMap(\.string)
                {
                    return interfacesRemoved(by: path, object: object, names)
                }
            case (Self.properties, "PropertiesChanged"):
                if message.body.count == 3, let interface = message.body[0].string,
                    let changed = message.body[1].stringVariantDictionary,
                    let invalidated = message.body[2].arrayElements?.compactMap(\.string)
                {
                    return propertiesChanged(of: path, interface, changed: changed, invalidated: invalidated)
                }
            default:
                break
            }
        }
        // A reply, an error, another signal (or one whose body is not as expected): g_dbus_send_message.
        flushAll()
        var answered: String?
        if message.kind == .methodReturn || message.kind == .error, let serial = message.replySerial {
            answered = calls.removeValue(forKey: CallKey(caller: message.destination ?? "", serial: serial))
        }
        record(SentMessage(message, answering: answered))
        connection.sendServerMessage(outgoing)
    }

    /// Whether nothing is held and no idle phase is due.
    var isSettled: Bool {
        assertOnLoop()
        return held.isEmpty && idleIn == nil
    }

    /// The latest messages the simulator sent through the outbox, oldest first: what every client
    /// receives of them, in this order (the bus keeps one sender's order).
    var trace: [SentMessage] {
        assertOnLoop()
        return sent
    }

    private func record(_ message: SentMessage) {
        if sent.count == Self.traceLimit { sent.removeFirst(Self.traceLimit / 4) }
        sent.append(message)
    }

    func callArrives(_ call: DBusMessage) {
        assertOnLoop()
        noteActivity()
        if !call.noReplyExpected, let member = call.member {
            calls[CallKey(caller: call.sender ?? "", serial: call.serial)] = member
            if calls.count > Self.traceLimit { calls.removeAll() }
        }
        guard !held.isEmpty else { return }
        // The call's dispatch callback joined the idle queue at a drawn time: before the changes of one
        // of the turns held, or after all of them. The objects whose idle callbacks were ahead go first;
        // the call's reply will flush the rest in the order of their first change.
        let turns = Set(held.values.map(\.lastTurn)).sorted() + [Int.max]
        let arrival = turns[draw(.callArrival) { $0.below(turns.count) }]
        for path in idleOrder() where (held[path]?.lastTurn ?? Int.max) < arrival {
            flush(path)
        }
        if held.isEmpty { idleIn = nil }
    }

    // MARK: Holding

    private func interfacesAdded(
        by manager: DBusObjectPath, object path: DBusObjectPath, _ announced: [HeldObject.Announcement]
    ) {
        if let current = held[path], announced.contains(where: { current.removed.contains($0.name) }) {
            // An interface added again before its removal went out: the removal goes first (an idle flush
            // in between), rather than GDBus's InterfacesAdded-then-InterfacesRemoved, which no real
            // sequence of bluetoothd's events brings about.
            flush(path)
        }
        var object = held[path] ?? HeldObject()
        if !object.managers.contains(manager) { object.managers.append(manager) }
        for announcement in announced {
            if let index = object.added.firstIndex(where: { $0.name == announcement.name }) {
                object.added[index].properties = announcement.properties
                continue
            }
            object.added.append(announcement)
            if !(interfaces[path] ?? []).contains(announcement.name) {
                interfaces[path, default: []].append(announcement.name)
            }
        }
        touch(&object)
        held[path] = object
    }

    private func interfacesRemoved(by manager: DBusObjectPath, object path: DBusObjectPath, _ names: [String]) {
        var object = held[path] ?? HeldObject()
        if !object.managers.contains(manager) { object.managers.append(manager) }
        // remove_interface sends the interface's held property changes first.
        for name in names {
            if let changes = object.changed.removeValue(forKey: name) {
                send(path: path, interface: Self.properties, member: "PropertiesChanged", changes.body(for: name))
            }
        }
        for name in names {
            if let index = object.added.firstIndex(where: { $0.name == name }) {
                // Never announced: nothing is signalled for it.
                object.added.remove(at: index)
            } else if !object.removed.contains(name) {
                object.removed.append(name)
            }
        }
        interfaces[path]?.removeAll { names.contains($0) }
        if interfaces[path]?.isEmpty ?? true {
            // The object goes: generic_unregister sends its held signals at once.
            interfaces[path] = nil
            if object.firstChange < 0 { touch(&object) }
            held[path] = object
            flush(path)
            return
        }
        touch(&object)
        held[path] = object
    }

    private func propertiesChanged(
        of path: DBusObjectPath, _ interface: String, changed: [String: DBusValue], invalidated: [String]
    ) {
        var object = held[path] ?? HeldObject()
        if let index = object.added.firstIndex(where: { $0.name == interface }) {
            // Not announced yet: nothing is signalled; the InterfacesAdded carries the values.
            for (name, value) in changed { object.added[index].properties[name] = value }
            for name in invalidated { object.added[index].properties[name] = nil }
            held[path] = object
            return
        }
        object.changed[interface, default: PropertyChanges()].merge(changed: changed, invalidated: invalidated)
        guard interface == Self.characteristic, changed["Value"] != nil else {
            touch(&object)
            held[path] = object
            return
        }
        // G_DBUS_PROPERTY_CHANGED_FLAG_FLUSH: the object's held properties go now, ahead of other objects.
        sendChanges(of: path, object.changed)
        object.changed = [:]
        if object.firstChange >= 0 { held[path] = object }
    }

    /// Numbers a change of `object` and (re)places it in the pending list and the idle queue.
    private func touch(_ object: inout HeldObject) {
        if object.firstChange < 0 { object.firstChange = changes }
        object.lastChange = changes
        object.lastTurn = turn
        changes += 1
        if idleIn == nil {
            idleIn = draw(.idleDelay) { $0.turns() }
            if !tickScheduled { scheduleTick() }
        }
    }

    // MARK: Turns and the idle phase

    private func noteActivity() {
        if !tickScheduled { scheduleTick() }
    }

    private func scheduleTick() {
        tickScheduled = true
        loop.schedule { [weak self] in self?.tick() }
    }

    private func tick() {
        tickScheduled = false
        turn += 1
        guard let remaining = idleIn else { return }
        if remaining > 0 {
            idleIn = remaining - 1
            scheduleTick()
            return
        }
        idleIn = nil
        idlePhase()
    }

    /// The objects' idle callbacks run: in the order of their latest change, unless another client's call
    /// (queued before one of the turns' changes) is dispatched among them, whose reply flushes the rest in
    /// the order of their first change.
    private func idlePhase() {
        guard !held.isEmpty else { return }
        let order = idleOrder()
        let turns = Set(held.values.map(\.lastTurn)).sorted()
        let arrival = draw(.idleOrder) { $0.oneIn(2) ? turns[$0.below(turns.count)] : nil }
        if let arrival {
            for path in order where (held[path]?.lastTurn ?? Int.max) < arrival {
                flush(path)
            }
            flushAll()
        } else {
            for path in order { flush(path) }
        }
    }

    private func idleOrder() -> [DBusObjectPath] {
        held.sorted { $0.value.lastChange < $1.value.lastChange }.map(\.key)
    }

    // MARK: Sending

    /// Sends an object's held signals (process_changes): its parents' held `InterfacesAdded` first when it
    /// has some of its own, then its `InterfacesAdded`, its `PropertiesChanged` (one per interface, in the
    /// order of its interfaces) and its `InterfacesRemoved`.
    private func flush(_ path: DBusObjectPath) {
        guard let object = held.removeValue(forKey: path) else { return }
        if !object.added.isEmpty {
            announceParent(of: path)
            announce(path, object)
        }
        sendChanges(of: path, object.changed)
        if !object.removed.isEmpty {
            for manager in object.managers {
                send(
                    path: manager, interface: Self.objectManager, member: "InterfacesRemoved",
                    [.objectPath(path), .array(.string, object.removed.map(DBusValue.string))])
            }
        }
    }

    /// Sends the held `InterfacesAdded` of the nearest object above `path`, its own parent's first
    /// (emit_interfaces_added); the parent stays held otherwise.
    private func announceParent(of path: DBusObjectPath) {
        var ancestor = path.parent
        while let candidate = ancestor, interfaces[candidate] == nil, held[candidate] == nil {
            ancestor = candidate.parent
        }
        guard let parent = ancestor, var object = held[parent], !object.added.isEmpty else { return }
        announceParent(of: parent)
        announce(parent, object)
        object.added = []
        held[parent] = object
    }

    private func announce(_ path: DBusObjectPath, _ object: HeldObject) {
        let entries = object.added.map {
            DBusDictionaryEntry(key: .string($0.name), value: .stringVariantDictionary($0.properties))
        }
        let dictionary = DBusValue.dictionary(
            key: .string, value: .dictionary(key: .string, value: .variant), entries)
        for manager in object.managers {
            send(
                path: manager, interface: Self.objectManager, member: "InterfacesAdded",
                [.objectPath(path), dictionary])
        }
    }

    private func sendChanges(of path: DBusObjectPath, _ changed: [String: PropertyChanges]) {
        guard !changed.isEmpty else { return }
        let order = (interfaces[path] ?? []) + changed.keys.sorted().filter { !(interfaces[path] ?? []).contains($0) }
        for interface in order {
            guard let changes = changed[interface] else { continue }
            send(path: path, interface: Self.properties, member: "PropertiesChanged", changes.body(for: interface))
        }
    }

    private func send(path: DBusObjectPath, interface: String, member: String, _ body: [DBusValue]) {
        // The values came from messages that were valid: encoding them again cannot fail but for memory.
        guard let signal = try? DBusMessage.signal(path: path, interface: interface, member: member, body: body) else {
            return
        }
        record(SentMessage(signal, answering: nil))
        _ = try? connection.send(signal)
    }
}
