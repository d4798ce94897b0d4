import CDBus
import Ripple
import RippleLoop
import Synchronization

/// The libdbus connection of a ``DBusConnection``, driven by its event loop.
///
/// ## Confinement
/// After `init` (which runs the blocking handshake on the creating thread, before any other thread can
/// reach the connection), every libdbus call on the connection and every piece of state below is made on
/// the loop thread only: public entry points hop there with ``perform(_:)``. That is why the state is
/// `nonisolated(unsafe)`: it is confined to one thread, the way a SwiftNIO channel's state is confined to
/// its event loop. libdbus's own callbacks (watches, timeouts, dispatch status) come from inside libdbus
/// calls made on that thread.
///
/// ## Receiving
/// libdbus reads when a watch's descriptor is ready (``EventLoop/poll(_:for:)``), queues whole messages,
/// and reports "data remains"; the core then pops them all, in order, and routes each: replies to their
/// pending call, signals to the matching signal subscriptions, method calls to the exported objects.
/// Dispatching never nests: work that arrives while dispatching is picked up by the same loop.
final class ConnectionCore: Sendable {
    /// The loop whose thread owns the connection.
    let loop: EventLoop
    /// The bus name the bus assigned to this connection (`:1.42`), or empty for a peer-to-peer connection.
    let uniqueName: String

    /// The libdbus connection; nil once closed and released.
    @exclusivity(unchecked) private nonisolated(unsafe) var connection: OpaquePointer?
    /// Whether `connection` has been attached to the loop (watch functions set).
    private nonisolated(unsafe) var attached = false
    /// Whether a dispatch loop is running (libdbus must not be dispatched re-entrantly).
    @exclusivity(unchecked) private nonisolated(unsafe) var dispatching = false
    /// Whether a dispatch has been scheduled on the loop and not run yet.
    @exclusivity(unchecked) private nonisolated(unsafe) var dispatchScheduled = false
    /// Whether libdbus is reading or writing for a ready watch (``handle(_:flags:)``), which dispatches
    /// what it read right after.
    @exclusivity(unchecked) private nonisolated(unsafe) var handlingWatch = false
    /// Why the connection closed, once it has.
    @exclusivity(unchecked) private nonisolated(unsafe) var closeReason: DBusCloseReason?

    /// Header strings received recently, reused when they come again (loop thread only).
    private nonisolated(unsafe) let headerNames = HeaderNameCache()
    /// Calls waiting for their reply, by serial.
    private nonisolated(unsafe) var pendingCalls: [UInt32: PendingCall] = [:]
    /// Signal subscriptions, match rules and the owners of the names they name.
    let signalRouter = SignalRouter()
    /// Where method calls addressed to this connection go (the server side); nil: no object is exported.
    nonisolated(unsafe) var methodCallHandler: (any MethodCallHandling)?
    /// The objects exported on this connection (the server side, `Server/`): reachable from any thread,
    /// it is also the ``methodCallHandler`` from the start.
    let objectRegistry = ObjectRegistry()
    /// Where what the server side sends goes instead of the wire, when set (loop thread only; see
    /// ``DBusConnection/setServerMessageGate(_:)``).
    nonisolated(unsafe) var serverMessageGate: (@Sendable (DBusServerMessage) -> Void)?
    /// Sees each incoming method call just before its dispatch, when set (loop thread only; see
    /// ``DBusConnection/setMethodCallObserver(_:)``).
    nonisolated(unsafe) var methodCallObserver: (@Sendable (DBusMessage) -> Void)?

    /// The bytes libdbus holds in its outgoing queue (written by this process, not yet taken by the bus's
    /// socket), as of the last send or write on the loop thread: stored there, read from any thread.
    let outgoingBytes = Atomic<Int>(0)
    /// Handlers waiting for the outgoing queue to hold at most `bytes` (loop thread only).
    private nonisolated(unsafe) var outgoingWaiters: [(bytes: Int, handler: @Sendable () -> Void)] = []
    /// Whether a turn of the loop is scheduled to call the outgoing waiters that are due.
    private nonisolated(unsafe) var outgoingCheckScheduled = false

    /// Emits the close reason once the connection closes (the ``DBusConnection/closed`` publisher).
    let closeSubject = CurrentValueSubject<DBusCloseReason?, Never>(nil)

    /// At most this many messages are dispatched in one go before the loop gets a turn for other work.
    private static let dispatchBudget = 4096

    /// Opens and registers a connection on the calling thread (blocking), then attaches it to `loop`.
    init(bus: DBusBus, loop: EventLoop) throws(DBusError) {
        self.loop = loop
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }

        let opened: OpaquePointer?
        switch bus {
        case .system:
            opened = dbus_bus_get_private(DBUS_BUS_SYSTEM, &error)
        case .session:
            opened = dbus_bus_get_private(DBUS_BUS_SESSION, &error)
        case .address(let address):
            let connection = dbus_connection_open_private(address, &error)
            if let connection, dbus_bus_register(connection, &error) == 0 {
                dbus_connection_close(connection)
                dbus_connection_unref(connection)
                opened = nil
            } else {
                opened = connection
            }
        }
        guard let opened else {
            throw Self.connectionError(error)
        }
        dbus_connection_set_exit_on_disconnect(opened, 0)
        connection = opened
        uniqueName = dbus_bus_get_unique_name(opened).map { String(cString: $0) } ?? ""
        methodCallHandler = objectRegistry
        perform { core in core.attach() }
    }

    deinit {
        // Reached only once the loop has dropped its references: closed, or the loop stopped before
        // it could attach or close. Either way no other thread can touch the connection now.
        release()
    }

    private static func connectionError(_ error: CDBus.DBusError) -> DBusError {
        if dbus_error_is_set_value(error) {
            return .connectionFailed(
                name: error.name.map { String(cString: $0) } ?? "",
                message: error.message.map { String(cString: $0) } ?? "")
        }
        return .connectionFailed(name: "org.freedesktop.DBus.Error.Failed", message: "could not connect")
    }

    // MARK: Running on the loop thread

    /// Runs `body` on the loop thread: now when called there (so a loop-thread caller's requests keep
    /// their order), else queued behind what this thread queued before. Dropped if the loop has stopped.
    func perform(_ body: @escaping (ConnectionCore) -> Void) {
        loop.runOnLoopThread { body(self) }
    }

    /// Whether the connection is open (loop thread only).
    var isOpen: Bool {
        connection != nil && closeReason == nil
    }

    // MARK: Attaching to the loop

    private func attach() {
        guard let connection, closeReason == nil else { return }
        attached = true
        let context = Unmanaged.passUnretained(self).toOpaque()
        // The context is unretained: the core outlives the libdbus connection (it unrefs it in `close`),
        // and everything libdbus calls back into happens inside a libdbus call the core makes.
        guard
            dbus_connection_set_watch_functions(
                connection, addWatchCallback, removeWatchCallback, toggleWatchCallback, context, nil) != 0,
            dbus_connection_set_timeout_functions(
                connection, addTimeoutCallback, removeTimeoutCallback, toggleTimeoutCallback, context, nil) != 0
        else {
            close(reason: .failed(.outOfMemory))
            return
        }
        dbus_connection_set_dispatch_status_function(connection, dispatchStatusCallback, context, nil)
        dbus_connection_set_wakeup_main_function(connection, wakeupMainCallback, context, nil)
        // Messages may have arrived with the handshake, before the status function was set.
        scheduleDispatch()
    }

    // MARK: Watches

    /// Starts or stops watching `watch` as libdbus has it enabled (its add and toggle callbacks).
    func update(_ watch: OpaquePointer) {
        let record: WatchRecord
        if let data = dbus_watch_get_data(watch) {
            record = Unmanaged<WatchRecord>.fromOpaque(data).takeUnretainedValue()
        } else {
            record = WatchRecord(watch: watch, core: self)
            dbus_watch_set_data(watch, Unmanaged.passRetained(record).toOpaque(), releaseWatchRecordCallback)
        }
        guard dbus_watch_get_enabled(watch) != 0 else {
            record.stop()
            return
        }
        let flags = dbus_watch_get_flags(watch)
        var events: EventLoop.PollEvents = [.disconnect]
        if flags & DBUS_WATCH_READABLE.rawValue != 0 { events.insert(.readable) }
        if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { events.insert(.writable) }
        guard record.events != events || !record.isWatching else { return }
        record.stop()
        record.events = events
        // The record is the poll's subscriber: each readiness goes straight to ``handle(_:flags:)``.
        loop.poll(dbus_watch_get_unix_fd(watch), for: events).subscribe(record)
    }

    /// Stops watching `watch` (libdbus's remove callback).
    func remove(_ watch: OpaquePointer) {
        guard let data = dbus_watch_get_data(watch) else { return }
        Unmanaged<WatchRecord>.fromOpaque(data).takeUnretainedValue().stop()
    }

    /// Lets libdbus read or write after the loop saw `flags` on a watched descriptor.
    func handle(_ record: WatchRecord, flags: UInt32) {
        // A stopped record is a watch libdbus disabled, removed or freed: its readiness is stale.
        guard connection != nil, record.isWatching, let watch = record.watch else { return }
        handlingWatch = true
        dbus_watch_handle(watch, flags)
        handlingWatch = false
        // Only a write shrinks the outgoing queue (a read leaves it be: no libdbus lock per read).
        if flags & DBUS_WATCH_WRITABLE.rawValue != 0, let connection { noteOutgoingSize(connection) }
        dispatch()
    }

    // MARK: Timeouts

    /// Arms or disarms `timeout` as libdbus has it enabled (its add and toggle callbacks).
    func update(timeout: OpaquePointer) {
        let record: TimeoutRecord
        if let data = dbus_timeout_get_data(timeout) {
            record = Unmanaged<TimeoutRecord>.fromOpaque(data).takeUnretainedValue()
        } else {
            record = TimeoutRecord(timeout: timeout)
            dbus_timeout_set_data(timeout, Unmanaged.passRetained(record).toOpaque(), releaseTimeoutRecordCallback)
        }
        record.timer = nil
        guard dbus_timeout_get_enabled(timeout) != 0 else { return }
        let milliseconds = Int(max(dbus_timeout_get_interval(timeout), 1))
        let interval = EventLoop.SchedulerTimeType.Stride.milliseconds(milliseconds)
        record.timer = loop.schedule(after: loop.now.advanced(by: interval), interval: interval) {
            [weak self, weak record] in
            guard let self, let record, record.timer != nil, self.connection != nil, let timeout = record.timeout
            else { return }
            dbus_timeout_handle(timeout)
            self.dispatch()
        }
    }

    /// Disarms `timeout` (libdbus's remove callback).
    func remove(timeout: OpaquePointer) {
        guard let data = dbus_timeout_get_data(timeout) else { return }
        Unmanaged<TimeoutRecord>.fromOpaque(data).takeUnretainedValue().timer = nil
    }

    // MARK: Dispatching

    /// libdbus has messages to dispatch (its dispatch-status callback): they are dispatched soon, from the
    /// loop; at once after the read that brought them, when that read is the reason. (Scheduling from the
    /// loop thread wakes the loop through its event descriptor: two system calls and one more turn of the
    /// loop per read, which on a stream of notifications is a large share of each one's cost.)
    /// libdbus calls it from whichever thread changed the status (a send or a blocking call elsewhere):
    /// only the loop thread's own read is skipped.
    func dispatchStatusChanged() {
        guard !(loop.isInLoopThread && handlingWatch) else { return }
        scheduleDispatch()
    }

    /// libdbus asks for the main loop to wake up (its wake-up-main callback): it queued a message it read,
    /// or one to send that it could not write at once. On the loop thread, while the core reads for a
    /// ready watch or dispatches, nothing needs waking: the dispatch that follows (or the one under way)
    /// takes what was queued, and libdbus enables the write watch itself. libdbus calls it once per
    /// message it queues: scheduling each time would write the loop's event descriptor once per read of
    /// the bus socket, and turn the loop once more to answer it, for nothing.
    func wakeupRequested() {
        guard !(loop.isInLoopThread && (handlingWatch || dispatching)) else { return }
        scheduleDispatch()
    }

    /// Makes sure queued messages get dispatched: soon, from the loop, not from inside the caller.
    func scheduleDispatch() {
        guard !dispatchScheduled, !dispatching else { return }
        dispatchScheduled = true
        loop.schedule { [self] in
            dispatchScheduled = false
            dispatch()
        }
    }

    /// Takes the messages libdbus has queued, in order, up to the budget (then yields the loop), and routes
    /// each. The core pops them rather than running libdbus's dispatch: every message goes to ``route(_:)``
    /// alone (the core keeps its own pending calls and answers every method call itself), so dispatch's
    /// filter-list copy, reply table and object tree would be work per message for nothing.
    func dispatch() {
        guard let connection, !dispatching else { return }
        dispatching = true
        var count = 0
        var spent = false
        while self.connection != nil {
            guard count < Self.dispatchBudget else {
                spent = true
                break
            }
            // libdbus returns nil once its own status check finds nothing (more) to dispatch.
            guard let message = dbus_connection_pop_message(connection) else { break }
            _ = route(message)
            dbus_message_unref(message)
            count += 1
        }
        dispatching = false
        // Only a spent budget leaves messages behind: a nil pop means libdbus's own status check found none
        // (or no memory to queue them: they then wait for the next read). Asking libdbus again here would
        // take its locks once more per read of the socket.
        if spent, self.connection != nil {
            scheduleDispatch()
        }
        if closeReason != nil {
            release()
        }
    }

    /// Routes one incoming message; returns whether anything took it.
    func route(_ raw: OpaquePointer) -> Bool {
        let type = dbus_message_get_type(raw)
        switch type {
        case DBUS_MESSAGE_TYPE_METHOD_RETURN, DBUS_MESSAGE_TYPE_ERROR:
            let serial = dbus_message_get_reply_serial(raw)
            guard let pending = pendingCalls.removeValue(forKey: serial) else { return false }
            pending.complete(with: Self.replyResult(raw, names: headerNames))
            return true
        case DBUS_MESSAGE_TYPE_SIGNAL:
            // The fast paths first: they take only `PropertiesChanged`, and most signals are theirs.
            if signalRouter.hasTaps, signalRouter.deliverToTaps(raw) { return true }
            if dbus_message_is_signal(raw, "org.freedesktop.DBus.Local", "Disconnected") != 0,
                dbus_message_has_path(raw, "/org/freedesktop/DBus/Local") != 0
            {
                close(reason: .disconnected)
                return true
            }
            guard let message = try? DBusMessage(reading: raw, checkingHeaderNames: false, names: headerNames) else {
                // libdbus validated the bytes; a body the reader still refuses cannot match anything.
                return false
            }
            signalRouter.deliver(message, core: self)
            return true
        case DBUS_MESSAGE_TYPE_METHOD_CALL:
            if dbus_message_has_interface(raw, "org.freedesktop.DBus.Peer") != 0 {
                answerPeerCall(raw)
                return true
            }
            let message: DBusMessage
            do {
                message = try DBusMessage(reading: raw, checkingHeaderNames: false, names: headerNames)
            } catch {
                replyWithError(to: raw, name: "org.freedesktop.DBus.Error.InvalidArgs", message: error.description)
                return true
            }
            methodCallObserver?(message)
            if let methodCallHandler, methodCallHandler.handle(message, core: self) {
                return true
            }
            if dbus_message_get_no_reply(raw) == 0 {
                let unknown = message.path.map { "\($0)" } ?? "/"
                replyWithError(
                    to: raw, name: "org.freedesktop.DBus.Error.UnknownObject",
                    message: "No object at \(unknown) handles \(message.interface ?? "").\(message.member ?? "")")
            }
            return true
        default:
            return false
        }
    }

    /// The outcome a reply (or error) message stands for.
    private static func replyResult(_ raw: OpaquePointer, names: HeaderNameCache) -> Result<DBusMessage, DBusError> {
        let reply: DBusMessage
        do {
            reply = try DBusMessage(reading: raw, checkingHeaderNames: false, names: names)
        } catch {
            return .failure(.decoding(error))
        }
        if reply.kind == .error {
            let text: String
            if case .string(let first)? = reply.body.first {
                text = first
            } else {
                text = ""
            }
            return .failure(.remote(name: reply.errorName ?? "org.freedesktop.DBus.Error.Failed", message: text))
        }
        return .success(reply)
    }

    /// Answers a call of the `org.freedesktop.DBus.Peer` interface, which every connection implements (as
    /// libdbus's own dispatch does): `Ping` with an empty reply, `GetMachineId` with this machine's ID,
    /// anything else with `UnknownMethod`.
    private func answerPeerCall(_ raw: OpaquePointer) {
        guard let connection, dbus_message_get_no_reply(raw) == 0 else { return }
        let reply: OpaquePointer?
        if dbus_message_is_method_call(raw, "org.freedesktop.DBus.Peer", "Ping") != 0 {
            reply = dbus_message_new_method_return(raw)
        } else if dbus_message_is_method_call(raw, "org.freedesktop.DBus.Peer", "GetMachineId") != 0 {
            var error = CDBus.DBusError()
            dbus_error_init(&error)
            defer { dbus_error_free(&error) }
            if let identifier = dbus_try_get_local_machine_id(&error) {
                defer { dbus_free(identifier) }
                reply = dbus_message_new_method_return(raw)
                if let reply {
                    var arguments = DBusMessageIter()
                    var characters: UnsafePointer<CChar>? = UnsafePointer(identifier)
                    dbus_message_iter_init_append(reply, &arguments)
                    _ = dbus_message_iter_append_basic(&arguments, Int32(DBusTypeCode.string), &characters)
                }
            } else {
                let name = error.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
                let text = error.message.map { String(cString: $0) } ?? "no machine ID"
                reply = dbus_message_new_error(raw, name, text)
            }
        } else {
            reply = dbus_message_new_error(
                raw, "org.freedesktop.DBus.Error.UnknownMethod",
                "Unknown method invoked on org.freedesktop.DBus.Peer interface")
        }
        guard let reply else { return }
        dbus_connection_send(connection, reply, nil)
        dbus_message_unref(reply)
    }

    /// Answers the method call `raw` with an error, straight through libdbus (used before a call could be
    /// read, and for calls nobody handles).
    private func replyWithError(to raw: OpaquePointer, name: String, message: String) {
        guard let connection, dbus_message_get_no_reply(raw) == 0,
            let reply = dbus_message_new_error(raw, name, message)
        else { return }
        dbus_connection_send(connection, reply, nil)
        dbus_message_unref(reply)
    }

    // MARK: Sending

    /// Sends `message` and returns its serial (loop thread only).
    @discardableResult
    func send(_ message: DBusMessage) throws(DBusError) -> UInt32 {
        try send(EncodedMessage(message))
    }

    /// Sends the encoded `message` and returns its serial (loop thread only).
    @discardableResult
    func send(_ message: EncodedMessage) throws(DBusError) -> UInt32 {
        guard let connection, closeReason == nil else { throw .disconnected }
        var serial: UInt32 = 0
        guard dbus_connection_send(connection, message.raw, &serial) != 0 else { throw .outOfMemory }
        noteOutgoingSize(connection)
        return serial
    }

    // MARK: The outgoing queue

    /// Stores the size of libdbus's outgoing queue after a send or a write (loop thread only), and when a
    /// waiter is due, schedules the turn that calls it: never from inside the send, whose caller may be
    /// sending a batch whose order a handler's sends must not cut into.
    private func noteOutgoingSize(_ connection: OpaquePointer) {
        let size = Int(dbus_connection_get_outgoing_size(connection))
        outgoingBytes.store(size, ordering: .relaxed)
        guard !outgoingWaiters.isEmpty, !outgoingCheckScheduled,
            outgoingWaiters.contains(where: { size <= $0.bytes })
        else { return }
        outgoingCheckScheduled = true
        loop.schedule { [self] in
            outgoingCheckScheduled = false
            callDueOutgoingWaiters()
        }
    }

    /// Calls, once each, the waiters whose size the outgoing queue is within (loop thread only).
    private func callDueOutgoingWaiters() {
        guard let connection, closeReason == nil else { return }
        let size = Int(dbus_connection_get_outgoing_size(connection))
        outgoingBytes.store(size, ordering: .relaxed)
        var due: [@Sendable () -> Void] = []
        outgoingWaiters.removeAll { waiter in
            guard size <= waiter.bytes else { return false }
            due.append(waiter.handler)
            return true
        }
        for handler in due { handler() }
    }

    /// Calls `handler` once, on the loop thread, when the outgoing queue holds at most `bytes`: on a later
    /// turn of the loop when it already does, else after the write that brings it there. Never once the
    /// connection has closed (loop thread only).
    func whenOutgoingBytes(atMost bytes: Int, _ handler: @escaping @Sendable () -> Void) {
        guard let connection, closeReason == nil else { return }
        outgoingWaiters.append((bytes, handler))
        noteOutgoingSize(connection)
    }

    /// Sends the method call `message` and calls `completion` once, on the loop thread, with its reply, a
    /// timeout or a failure; returns a token that ``cancelCall(_:)`` takes (loop thread only).
    func startCall(
        _ message: DBusMessage,
        timeout: Duration?,
        completion: @escaping (Result<DBusMessage, DBusError>) -> Void
    ) -> UInt32? {
        let serial: UInt32
        do {
            var call = message
            call.noReplyExpected = false
            serial = try send(call)
        } catch {
            completion(.failure(error))
            return nil
        }
        let pending = PendingCall(completion: completion)
        if let timeout {
            pending.timer = loop.scheduleCancellable(
                after: loop.now.advanced(by: .nanoseconds(timeout.clampedNanoseconds))
            ) {
                [weak self] in
                guard let self, let expired = self.pendingCalls.removeValue(forKey: serial) else { return }
                expired.complete(with: .failure(.timedOut))
            }
        }
        pendingCalls[serial] = pending
        return serial
    }

    /// How many calls are waiting for their reply (loop thread only).
    var pendingCallCount: Int { pendingCalls.count }

    /// Forgets the call `serial`: its reply, when it comes, is dropped (loop thread only).
    func cancelCall(_ serial: UInt32) {
        pendingCalls.removeValue(forKey: serial)?.timer?.cancel()
    }

    // MARK: Closing

    /// Closes the connection (loop thread only): pending calls fail with `.disconnected`, signal streams
    /// end, exported objects are unexported, the ``DBusConnection/closed`` publisher emits `reason`.
    /// Idempotent.
    func close(reason: DBusCloseReason) {
        guard closeReason == nil else { return }
        closeReason = reason
        let calls = pendingCalls
        pendingCalls = [:]
        for call in calls.values {
            call.complete(with: .failure(.disconnected))
        }
        signalRouter.closeAll()
        methodCallHandler = nil
        outgoingWaiters = []
        // Exported objects go with the connection: handlers that hold the connection release it.
        objectRegistry.removeAll(core: self)
        closeSubject.send(reason)
        if !dispatching {
            release()
        }
    }

    /// Detaches from the loop and releases the libdbus connection (after `close`, outside dispatch).
    private func release() {
        guard let connection else { return }
        self.connection = nil
        if attached {
            dbus_connection_set_dispatch_status_function(connection, nil, nil, nil)
            dbus_connection_set_wakeup_main_function(connection, nil, nil, nil)
        }
        dbus_connection_close(connection)
        if attached {
            // Removes (and stops) every watch and timeout: their records are released by libdbus.
            dbus_connection_set_watch_functions(connection, nil, nil, nil, nil, nil)
            dbus_connection_set_timeout_functions(connection, nil, nil, nil, nil, nil)
        }
        dbus_connection_unref(connection)
    }
}

/// `dbus_error_is_set` as a function of the value (the C macro-like function takes a pointer).
// swift-format-ignore: AlwaysUseLowerCamelCase
func dbus_error_is_set_value(_ error: CDBus.DBusError) -> Bool {
    var copy = error
    return dbus_error_is_set(&copy) != 0
}
