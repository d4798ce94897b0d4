/// The objects of an `org.freedesktop.DBus.ObjectManager` as ``DBusObjectManagerEvent``s built them: start
/// empty, ``apply(_:)`` each event of ``DBusConnection/managedObjects(destination:path:buffering:)`` in
/// order, and ``objects`` is the service's current tree.
///
/// ```swift
/// var state = DBusObjectManagerState()
/// bus.managedObjects(destination: "org.bluez").sink(receiveCompletion: { _ in }) { event in
///     state.apply(event)
///     let devices = state.objects(implementing: "org.bluez.Device1")
/// }
/// ```
public struct DBusObjectManagerState: Sendable, Hashable {
    /// The objects: by path, their interfaces, by name, their properties.
    public private(set) var objects: DBusManagedObjects

    /// A state holding `objects` (empty by default).
    ///
    /// - Parameter objects: the objects, by path.
    public init(objects: DBusManagedObjects = [:]) {
        self.objects = objects
    }

    /// The interfaces (and their properties) of the object at `path`, or nil when there is none.
    ///
    /// - Parameter path: the object's path.
    /// - Returns: its interfaces with their properties, or nil.
    public subscript(path: DBusObjectPath) -> [String: [String: DBusValue]]? {
        objects[path]
    }

    /// The properties of `interface` of the object at `path`, or nil when the object or the interface is
    /// not there.
    ///
    /// - Parameters:
    ///   - path: the object's path.
    ///   - interface: the interface.
    /// - Returns: the properties by name, or nil.
    public func properties(of path: DBusObjectPath, interface: String) -> [String: DBusValue]? {
        objects[path]?[interface]
    }

    /// The paths of the objects that have `interface`, in path order (`org.bluez.Device1`: the devices).
    ///
    /// - Parameter interface: the interface.
    /// - Returns: the paths, in order.
    public func objects(implementing interface: String) -> [DBusObjectPath] {
        objects.compactMap { $0.value[interface] == nil ? nil : $0.key }.sorted()
    }

    /// Applies `event`:
    /// - a snapshot replaces every object;
    /// - added interfaces are set (replacing an interface the object already had), creating the object;
    /// - removed interfaces are taken off, and the object with them when it has none left;
    /// - changed properties take their new values; invalidated ones are dropped (their value is no
    ///   longer known); a change for an object or interface that is not there is ignored.
    /// - Parameter event: the event.
    public mutating func apply(_ event: DBusObjectManagerEvent) {
        switch event {
        case .snapshot(let objects):
            self.objects = objects
        case .interfacesAdded(let path, let interfaces):
            objects[path, default: [:]].merge(interfaces) { _, added in added }
        case .interfacesRemoved(let path, let interfaces):
            guard var object = objects[path] else { return }
            for interface in interfaces {
                object[interface] = nil
            }
            objects[path] = object.isEmpty ? nil : object
        case .propertiesChanged(let path, let change):
            guard objects[path]?[change.interface] != nil else { return }
            objects[path]?[change.interface]?.merge(change.changed) { _, new in new }
            for name in change.invalidated {
                objects[path]?[change.interface]?[name] = nil
            }
        }
    }

    /// The state after `event` (see ``apply(_:)``).
    ///
    /// - Parameter event: the event.
    /// - Returns: the new state.
    public func applying(_ event: DBusObjectManagerEvent) -> DBusObjectManagerState {
        var state = self
        state.apply(event)
        return state
    }
}
