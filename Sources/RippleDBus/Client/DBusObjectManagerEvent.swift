/// The objects an `org.freedesktop.DBus.ObjectManager` manages: by object path, each object's interfaces
/// by name, each interface's properties by name (values unwrapped from their variants) — the result of
/// `GetManagedObjects` (`a{oa{sa{sv}}}`).
public typealias DBusManagedObjects = [DBusObjectPath: [String: [String: DBusValue]]]

/// What ``DBusConnection/managedObjects(destination:path:buffering:)`` emits: the managed objects once,
/// then each change to them, in the order the service made them.
///
/// Applying them in order to a ``DBusObjectManagerState`` gives the service's current objects.
public enum DBusObjectManagerEvent: Sendable, Hashable {
    /// All the objects the manager has, as `GetManagedObjects` answered: always the first event.
    case snapshot(DBusManagedObjects)
    /// The object at the path gained these interfaces (with their properties); an object not seen before
    /// appeared. An interface it already had is replaced.
    case interfacesAdded(DBusObjectPath, [String: [String: DBusValue]])
    /// The object at the path lost these interfaces (only ones it had); it is gone when none remain.
    case interfacesRemoved(DBusObjectPath, [String])
    /// Properties of one interface of the object at the path changed (only for an object and interface
    /// the manager has).
    case propertiesChanged(DBusObjectPath, DBusPropertiesChange)
}
