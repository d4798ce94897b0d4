import Ripple
import RippleDBus
import RippleLoop

/// The central's work on the loop thread, one piece at a time, and the hot path of its notifications
/// over the bus and over sockets: what ``CentralCore/perform(_:)``, the connection's `Value` fast path and
/// the acquired sockets share.
///
/// - **One piece of work at a time.** Work started while other work runs (a subscriber cancelling from
///   inside a value) waits for it and runs when it ends, in the order it came.
/// - **Values straight to their listeners.** The `Value` changes of the characteristic that changed last
///   go to that session's listeners as long as no session changes (the central sets and drops the
///   ``ValueRoute``); any other change goes to the central. The same for the packets of the acquired
///   socket read last (a route of its own).
///
/// The connection's fast path and each acquired socket hold this object, not the central: a notification
/// costs no weak load of the central (and no reference counting on its side table). It holds nothing
/// that holds the connection or the central (the central weakly, the routes' listeners until a session
/// changes), so the central and its connection go even when the loop stopped before the central's stop
/// could remove the fast path.
///
/// Confined to the loop thread: every entry point checks that it runs there.
final class CentralWork: Sendable {
    private let loop: EventLoop
    /// The central, for the changes the route does not take (set once, when the central is made).
    nonisolated(unsafe) weak var central: CentralCore?
    /// Whether work runs, and the work that waits for it (loop thread only; see the type's comment).
    @exclusivity(unchecked) nonisolated(unsafe) private var busy = false
    @exclusivity(unchecked) nonisolated(unsafe) private var deferred: [@Sendable () -> Void] = []
    @exclusivity(unchecked) nonisolated(unsafe) private var storedRoute: ValueRoute?
    /// Every route made since a session last changed, by path: with several characteristics notifying at
    /// once, a change of another one than the last costs a look-up instead of a trip to the central.
    @exclusivity(unchecked) nonisolated(unsafe) private var routes: [DBusObjectPath: ValueRoute] = [:]
    @exclusivity(unchecked) nonisolated(unsafe) private var storedSocketRoute: ValueRoute?
    /// Every socket route made since a session last changed, by path (several sockets at once).
    @exclusivity(unchecked) nonisolated(unsafe) private var socketRoutes: [DBusObjectPath: ValueRoute] = [:]

    /// The work of a central on `loop`.
    ///
    /// - Parameter loop: the loop whose thread alone runs the work.
    init(loop: EventLoop) {
        self.loop = loop
    }

    private func checkThread() {
        precondition(loop.isInLoopThread, "the central's state is confined to its loop thread")
    }

    /// Whether work runs now.
    var isBusy: Bool {
        checkThread()
        return busy
    }

    /// Where the `Value` changes of the characteristic that changed last go straight away; nil when none
    /// does. Setting a route also keeps it for its path; setting nil drops every route kept (a session
    /// changed).
    var route: ValueRoute? {
        get {
            checkThread()
            return storedRoute
        }
        set {
            checkThread()
            storedRoute = newValue
            if let newValue {
                routes[newValue.path] = newValue
            } else {
                routes.removeAll()
            }
        }
    }

    /// Where the packets of the acquired socket read last go straight away; nil when none does. Setting a
    /// route also keeps it for its path; setting nil drops every socket route kept (a session changed).
    var socketRoute: ValueRoute? {
        get {
            checkThread()
            return storedSocketRoute
        }
        set {
            checkThread()
            storedSocketRoute = newValue
            if let newValue {
                socketRoutes[newValue.path] = newValue
            } else {
                socketRoutes.removeAll()
            }
        }
    }

    /// Runs `work` now when no work runs, else after the work under way.
    ///
    /// - Parameter work: what to run.
    func run(_ work: @escaping @Sendable () -> Void) {
        checkThread()
        guard !busy else {
            deferred.append(work)
            return
        }
        busy = true
        work()
        runDeferred()
    }

    /// Marks work under way; the caller ends it with ``finish()``.
    func begin() {
        checkThread()
        busy = true
    }

    /// Ends the work under way: runs the work that waited for it, then lets the next come.
    func finish() {
        checkThread()
        runDeferred()
    }

    private func runDeferred() {
        while !deferred.isEmpty {
            let next = deferred.removeFirst()
            next()
        }
        busy = false
    }

    /// A `Value` change of the characteristic at `path`, from the connection's fast path (loop thread):
    /// to the route's listeners when it is that characteristic's and no work runs, else to the central.
    ///
    /// - Parameters:
    ///   - path: the characteristic's object path.
    ///   - value: its new value.
    func valueChanged(_ path: DBusObjectPath, _ value: [UInt8]) {
        checkThread()
        guard !busy else {
            central?.characteristicValueChanged(path, to: value)
            return
        }
        if let storedRoute, storedRoute.path == path {
            busy = true
            for listener in storedRoute.listeners { listener.offer(value) }
            runDeferred()
            return
        }
        if let route = routes[path] {
            storedRoute = route
            busy = true
            for listener in route.listeners { listener.offer(value) }
            runDeferred()
            return
        }
        central?.characteristicValueChanged(path, to: value)
    }

    /// Packets read from the acquired socket of the characteristic at `path` (loop thread): to the
    /// listeners of that characteristic's socket route when there is one and no work runs, else to the
    /// central. The hot path of notifications over a socket.
    ///
    /// - Parameters:
    ///   - packets: the packets, valid during this call only.
    ///   - path: the characteristic's object path.
    func packetsArrived(_ packets: ReceivedPackets, of path: DBusObjectPath) {
        checkThread()
        guard !busy else {
            central?.socketPackets(packets, of: path)
            return
        }
        if let storedSocketRoute, storedSocketRoute.path == path {
            busy = true
            for packet in packets { for listener in storedSocketRoute.listeners { listener.offer(packet) } }
            runDeferred()
            return
        }
        if let route = socketRoutes[path] {
            storedSocketRoute = route
            busy = true
            for packet in packets { for listener in route.listeners { listener.offer(packet) } }
            runDeferred()
            return
        }
        central?.socketPackets(packets, of: path)
    }
}
