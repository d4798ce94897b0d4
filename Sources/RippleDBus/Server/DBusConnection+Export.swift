extension DBusConnection {
    /// Exports `object` at its path: calls to it are answered from then on — its methods (handlers run on
    /// the loop thread), `org.freedesktop.DBus.Properties`, `Introspectable` and (by libdbus) `Peer` —
    /// and what it emits goes out. Emits `InterfacesAdded` (its interfaces, with their readable
    /// properties) from every object manager above it. Safe from any thread.
    ///
    /// Calls to a path where nothing is exported (nor below) are answered
    /// `org.freedesktop.DBus.Error.UnknownObject`; to an unknown interface, `UnknownInterface`; to an
    /// unknown method, `UnknownMethod`.
    ///
    /// - Parameter object: the object.
    /// - Throws: ``DBusError/invalidArgument(_:)`` when an object is already exported at that path on this connection,
    ///   or this object is exported on another connection.
    public func export(_ object: DBusExportedObject) throws(DBusError) {
        try core.objectRegistry.export(object, core: core)
    }

    /// Stops exporting the object at `path` (it keeps its state and may be exported again); emits
    /// `InterfacesRemoved` from every object manager above it. Returns whether an object was exported there.
    ///
    /// - Parameter path: the object's path.
    /// - Returns: whether an object was exported there.
    @discardableResult
    public func unexport(_ path: DBusObjectPath) -> Bool {
        core.objectRegistry.unexport(path, core: core)
    }

    /// The object exported at `path`, if any.
    ///
    /// - Parameter path: the path.
    /// - Returns: the object, or nil.
    public func exportedObject(at path: DBusObjectPath) -> DBusExportedObject? {
        core.objectRegistry.object(at: path)
    }

    /// Exports an `org.freedesktop.DBus.ObjectManager` at `path` (BlueZ has its at `/`): its
    /// `GetManagedObjects` answers every object exported strictly below `path` (`a{oa{sa{sv}}}`: paths,
    /// then each interface with its readable properties; the standard interfaces left out), and from then on
    /// it emits `InterfacesAdded` / `InterfacesRemoved` when objects below it are exported or unexported
    /// or gain or lose interfaces — in order with their `PropertiesChanged`. An object may be exported at
    /// `path` too; its introspection then lists the manager's interface.
    ///
    /// - Parameter path: the manager's path.
    /// - Throws: ``DBusError/invalidArgument(_:)`` when a manager is already exported at `path`.
    public func exportObjectManager(at path: DBusObjectPath) throws(DBusError) {
        try core.objectRegistry.addManager(at: path)
    }

    /// Removes the object manager at `path`; returns whether there was one. Emits nothing.
    ///
    /// - Parameter path: the manager's path.
    /// - Returns: whether there was one.
    @discardableResult
    public func unexportObjectManager(at path: DBusObjectPath) -> Bool {
        core.objectRegistry.removeManager(at: path)
    }
}
