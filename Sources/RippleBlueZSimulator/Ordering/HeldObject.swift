import RippleDBus

/// What bluetoothd's GDBus layer holds for one object until the object is flushed (gdbus/object.c,
/// `struct generic_data`: `added`, the interfaces' `pending_prop`, `removed`), and where the object stands
/// in GDBus's pending list and idle queue.
struct HeldObject {
    /// An interface whose `InterfacesAdded` has not gone out, with its properties as they are now.
    struct Announcement {
        /// The interface's name.
        let name: String
        /// Its readable properties' current values.
        var properties: [String: DBusValue]
    }

    /// The object managers that announce the object (those above it), in the order they were seen.
    var managers: [DBusObjectPath] = []
    /// Interfaces not announced yet, in the order they were added.
    var added: [Announcement] = []
    /// Property changes not signalled yet, by interface.
    var changed: [String: PropertyChanges] = [:]
    /// Interfaces removed whose `InterfacesRemoved` has not gone out, in the order they were removed.
    var removed: [String] = []
    /// The object's place in GDBus's pending list: the number of the change that put it there (-1: none).
    var firstChange = -1
    /// Its place in GDBus's idle queue: the number of its latest change (each change re-adds its idle
    /// callback at the end).
    var lastChange = -1
    /// The loop turn of its latest change.
    var lastTurn = 0

    /// Whether nothing is held.
    var isEmpty: Bool { added.isEmpty && changed.isEmpty && removed.isEmpty }
}

/// The held changes of one interface's properties: each name once, in the order it first changed, with
/// its latest value, or invalidated (gdbus/object.c `pending_prop`: values are read when they are sent).
struct PropertyChanges {
    private var names: [String] = []
    private var values: [String: DBusValue] = [:]

    /// Takes in one `PropertiesChanged`: `changed` values replace earlier ones, `invalidated` names drop
    /// theirs.
    ///
    /// - Parameters:
    ///   - changed: Properties and their new values.
    ///   - invalidated: Properties that no longer have a value.
    mutating func merge(changed: [String: DBusValue], invalidated: [String]) {
        for name in changed.keys.sorted() + invalidated where !names.contains(name) {
            names.append(name)
        }
        for (name, value) in changed { values[name] = value }
        for name in invalidated { values[name] = nil }
    }

    /// The body of the one `PropertiesChanged` that carries these changes for `interface`.
    ///
    /// - Parameters:
    ///   - interface: The interface whose properties changed.
    /// - Returns: `sa{sv}as`: the interface, the values, the invalidated names (in the order first changed).
    func body(for interface: String) -> [DBusValue] {
        [
            .string(interface), .stringVariantDictionary(values),
            .array(.string, names.filter { values[$0] == nil }.map(DBusValue.string)),
        ]
    }
}
