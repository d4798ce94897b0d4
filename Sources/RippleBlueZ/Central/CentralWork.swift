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
    /// The routes of `Value` changes on the bus, and of the acquired sockets' packets (loop thread only).
    @exclusivity(unchecked) nonisolated(unsafe) private var busRoutes = Routes()
    @exclusivity(unchecked) nonisolated(unsafe) private var socketRoutes = Routes()

    /// The routes of one kind: the one set last, and every route set since a session last changed, by
    /// path (with several characteristics notifying at once, a change of another one than the last costs a
    /// look-up instead of a trip to the central).
    private struct Routes {
        private(set) var last: ValueRoute?
        private var byPath: [DBusObjectPath: ValueRoute] = [:]

        /// Sets the last route and keeps it for its path; nil drops every route kept (a session changed).
        mutating func set(_ route: ValueRoute?) {
            last = route
            if let route {
                byPath[route.path] = route
            } else {
                byPath.removeAll()
            }
        }

        /// The route of `path`, which becomes the last one; nil when none is kept.
        mutating func route(for path: DBusObjectPath) -> ValueRoute? {
            if let last, last.path == path { return last }
            guard let route = byPath[path] else { return nil }
            last = route
            return route
        }
    }

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
            return busRoutes.last
        }
        set {
            checkThread()
            busRoutes.set(newValue)
        }
    }

    /// Where the packets of the acquired socket read last go straight away; nil when none does. Setting a
    /// route also keeps it for its path; setting nil drops every socket route kept (a session changed).
    var socketRoute: ValueRoute? {
        get {
            checkThread()
            return socketRoutes.last
        }
        set {
            checkThread()
            socketRoutes.set(newValue)
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
        guard !busy, let route = busRoutes.route(for: path) else {
            central?.characteristicValueChanged(path, to: value)
            return
        }
        busy = true
        for listener in route.listeners { listener.offer(value) }
        runDeferred()
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
        guard !busy, let route = socketRoutes.route(for: path) else {
            central?.socketPackets(packets, of: path)
            return
        }
        busy = true
        for packet in packets { for listener in route.listeners { listener.offer(packet) } }
        runDeferred()
    }
}
