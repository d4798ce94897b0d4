import CLibUV
import Ripple
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A libuv event loop that is a Ripple `Scheduler`: it runs closures, one-shot and repeating timers,
/// and file-descriptor readiness publishers on one thread.
///
/// ```swift
/// let owner = try EventLoopThread()           // a loop running on a thread of its own
/// let loop = owner.loop
/// loop.schedule { print("on the loop thread") }
/// let ticks = loop.schedule(after: loop.now, interval: .milliseconds(100)) { print("tick") }
/// loop.poll(socket, for: .readable).sink(receiveCompletion: { _ in }, receiveValue: { _ in readSocket() })
/// ```
///
/// ## Threading model
/// - **The loop thread** is the thread inside ``run()``: the thread of an ``EventLoopThread``, or any
///   thread of yours that calls `run()` (which blocks it until the loop stops). Everything the loop
///   does for you happens there: scheduled closures, timer actions, and the values and completions of
///   ``poll(_:for:)`` publishers. They run one at a time, never concurrently with each other.
///   ``isInLoopThread`` tells whether the caller is on it.
/// - **From any thread** (including the loop thread) you may call ``schedule(options:_:)``, the timer
///   methods, ``stop()``, subscribe to a poll publisher, and `request`/`cancel` its subscription.
///   A poll subscription's `receive(subscription:)` happens on the subscribing thread.
/// - **Order**: closures handed to `schedule` run in the order they were scheduled by each thread
///   (a single first-in first-out queue); a closure scheduled from inside a loop callback runs after
///   that callback returns, never re-entrantly. Timers fire in deadline order, equal deadlines in
///   scheduling order, never before their deadline. No order is promised between a timer that is due and
///   closures handed to `schedule`.
/// - **Timing**: libuv timers have millisecond resolution, so a timer fires at its deadline or up to a
///   few milliseconds after it (more when the loop thread is busy) — see ``minimumTolerance``.
///   Tolerances passed to the timer methods are accepted and ignored.
///
/// ## Stopping
/// ``stop()`` (from any thread, any number of times) makes the loop finish and ``run()`` return:
/// - closures handed to `schedule` **before** `stop()` still run, in order, before the loop closes;
///   closures scheduled after it (by any thread, including by those final closures) are **dropped**:
///   released without running;
/// - timers that have not fired are dropped at once (released on the thread calling `stop()`), and
///   repeating timers end;
/// - every poll publisher's subscriber receives `.finished`, and a later subscriber receives
///   `.finished` at once;
/// - every libuv handle is closed and freed, and the libuv loop is closed.
///
/// Stopping a loop that is not running makes its next `run()` do only that final work and return.
/// A loop that is never run and is released is closed by `deinit`, dropping what was scheduled on it.
///
/// ## Cost
/// `schedule(options:_:)` from any thread is one lock acquisition and an array append (no allocation
/// beyond the closure itself once the queue has grown); the loop thread is woken through one
/// `uv_async` handle only when the queue was empty since its last drain, and takes the whole queue in
/// one lock acquisition per wake-up. Timers are kept in a min-heap of deadlines driven by a single
/// `uv_timer`: scheduling one from any thread is a lock acquisition and an O(log n) insertion, with no
/// libuv handle per timer (`TimerQueue` explains the choice).
public final class EventLoop: Sendable {
    // MARK: libuv state

    // The loop and its two handles live at fixed addresses for the loop's lifetime. They are touched only
    // by the loop thread (or by `init`/`deinit`, when no other thread can reach the loop), with one
    // exception: `uv_async_send(wakeup)`, which libuv makes safe from any thread, and which this class
    // calls only under `lock` while `accepting` is true (the handle is closed only after that is false).
    private nonisolated(unsafe) let uvLoop: UnsafeMutablePointer<uv_loop_t>
    private nonisolated(unsafe) let wakeup: UnsafeMutablePointer<uv_async_t>
    private nonisolated(unsafe) let timer: UnsafeMutablePointer<uv_timer_t>

    /// The libuv error that prevented the loop from being created, if any (the loop is then closed).
    let startupError: EventLoopError?

    // MARK: State shared between threads (read and written only under `lock`)

    private let lock = Lock()
    /// Closures waiting for the loop thread, first-in first-out.
    private nonisolated(unsafe) var queue: [ScheduledAction] = []
    /// Whether a wake-up has been sent that the loop thread has not yet answered.
    private nonisolated(unsafe) var wakePending = false
    /// Whether new work is accepted: false from `stop()` on.
    private nonisolated(unsafe) var accepting = true
    /// Whether a thread is inside `run()`.
    private nonisolated(unsafe) var running = false
    /// Whether the libuv loop has been closed (after `run()` finished, or because it failed to start).
    private nonisolated(unsafe) var closed = false
    /// What `uv_loop_close` returned (0: every handle was closed and freed).
    private nonisolated(unsafe) var closeStatus: Int32 = 0

    /// The loop's timers.
    let timers = TimerQueue()

    /// Set by `stop()`: lets the loop thread skip the rest of a batch of due timers without the lock.
    private let stopRequested = Atomic<Bool>(false)

    /// The `pthread_t` of the thread inside `run()`, or 0.
    private let loopThread = Atomic<UInt>(0)

    // MARK: Loop-thread state (touched only on the loop thread)
    // One thread at a time by construction, so the dynamic exclusivity check (a thread-local look-up per
    // access, several per wake-up) is skipped.

    /// The batch of closures being run; swapped with `queue` on each wake-up so both keep their capacity.
    @exclusivity(unchecked) private nonisolated(unsafe) var drained: [ScheduledAction] = []
    /// The batch of timers being fired.
    @exclusivity(unchecked) private nonisolated(unsafe) var dueTimers: [TimerEntry] = []
    /// The deadline the `uv_timer` is started for, or `Int.max` when it is stopped.
    @exclusivity(unchecked) private nonisolated(unsafe) var armedFor = Int.max
    /// Whether the handles have been closed (the loop is shutting down).
    @exclusivity(unchecked) private nonisolated(unsafe) var handlesClosed = false
    /// The file descriptors being polled, each with its one `uv_poll` handle.
    @exclusivity(unchecked) private nonisolated(unsafe) var pollers: [Int32: FileDescriptorPoller] = [:]

    // MARK: Creating

    /// Creates a loop; it runs nothing until a thread calls ``run()`` (or use ``EventLoopThread``).
    ///
    /// - Throws: ``EventLoopError/libuv(code:)`` when libuv cannot create it (for example when the process is out of
    ///   file descriptors).
    public convenience init() throws(EventLoopError) {
        self.init(openingLibUV: ())
        if let startupError {
            throw startupError
        }
    }

    /// Creates a loop, recording in ``startupError`` (and leaving the loop closed) a libuv failure.
    init(openingLibUV: Void) {
        uvLoop = .allocate(capacity: 1)
        wakeup = .allocate(capacity: 1)
        timer = .allocate(capacity: 1)
        var status = uv_loop_init(uvLoop)
        if status == 0 {
            status = uv_async_init(uvLoop, wakeup, eventLoopWakeupCallback)
            if status != 0 {
                uv_loop_close(uvLoop)
            }
        }
        if status == 0 {
            status = uv_timer_init(uvLoop, timer)
        }
        guard status == 0 else {
            startupError = .libuv(code: status)
            accepting = false
            closed = true
            handlesClosed = true
            wakeup.deallocate()
            timer.deallocate()
            return
        }
        startupError = nil
        let context = Unmanaged.passUnretained(self).toOpaque()
        wakeup.pointee.data = context
        timer.pointee.data = context
    }

    deinit {
        // No thread is inside `run()` (it keeps the loop alive), so this thread owns the libuv state.
        if !closed {
            // Never run: close the handles and let libuv call their close callbacks.
            let dropped = timers.close()
            closeHandles()
            uv_run(uvLoop, UV_RUN_DEFAULT)
            closeStatus = uv_loop_close(uvLoop)
            _ = dropped
        }
        // A loop libuv refused to close still references its handles' memory: leak it rather than
        // free memory libuv may touch (this does not happen when every handle was closed, as here).
        if closeStatus == 0 {
            uvLoop.deallocate()
        }
    }

    // MARK: The shared loop

    /// The process-wide loop, running on a thread of its own from its first use until the process ends:
    /// the loop the BLE layers use unless given another.
    ///
    /// Do not stop it: stopping it stops it for the whole process. If the process cannot create it
    /// (out of file descriptors or threads), it is a stopped loop: work scheduled on it is dropped and its
    /// poll publishers finish at once.
    public static var shared: EventLoop {
        SharedEventLoop.loop
    }

    // MARK: Running

    /// Whether the calling thread is the one running the loop.
    public var isInLoopThread: Bool {
        let thread = loopThread.load(ordering: .acquiring)
        return thread != 0 && thread == UInt(pthread_self())
    }

    /// Runs the loop on the calling thread until ``stop()`` is called, then closes it and returns.
    ///
    /// Returns at once if the loop has already stopped and closed.
    ///
    /// - Throws: ``EventLoopError/alreadyRunning`` if a thread (this one included, from inside a loop callback) is
    ///   already running it.
    public func run() throws(EventLoopError) {
        let mayRun: Bool? = lock.withLock {
            if closed { return false }
            if running { return nil }
            running = true
            return true
        }
        guard let mayRun else { throw .alreadyRunning }
        guard mayRun else { return }

        loopThread.store(UInt(pthread_self()), ordering: .releasing)
        armTimer(for: timers.deadlineToArm())
        // `uv_run` returns once no handle is active or closing: after the shutdown below has closed them
        // all and libuv has called their close callbacks.
        repeat {
            uv_run(uvLoop, UV_RUN_DEFAULT)
        } while !handlesClosed
        let status = uv_loop_close(uvLoop)
        loopThread.store(0, ordering: .releasing)
        lock.withLock {
            closeStatus = status
            closed = true
            running = false
        }
    }

    /// Stops the loop: see "Stopping" above. Safe from any thread, any number of times; returns without
    /// waiting (``EventLoopThread/stop()`` waits for its thread).
    public func stop() {
        let stopping = lock.withLock { () -> Bool in
            guard accepting else { return false }
            accepting = false
            if !wakePending {
                wakePending = true
                uv_async_send(wakeup)
            }
            return true
        }
        guard stopping else { return }
        stopRequested.store(true, ordering: .relaxed)
        // Timers are dropped now rather than when the loop thread gets to it, so that none fires after
        // `stop()` returns (a tick already running on the loop thread finishes). Their closures are
        // released here, on the stopping thread.
        let droppedTimers = timers.close()
        _ = droppedTimers
    }

    // MARK: Scheduling (internal entry points)

    /// Queues `action` for the loop thread; returns false (and keeps nothing) once the loop has stopped.
    @discardableResult
    func enqueue(_ action: ScheduledAction) -> Bool {
        lock.withLock {
            guard accepting else { return false }
            queue.append(action)
            if !wakePending {
                wakePending = true
                uv_async_send(wakeup)
            }
            return true
        }
    }

    /// Adds a timer entry, waking the loop thread if the `uv_timer` must be re-armed earlier.
    func insertTimer(deadline: Int, action: ScheduledAction, record: TimerRecord?) {
        guard timers.insert(deadline: deadline, action: action, record: record) == .needsWake else { return }
        lock.withLock {
            guard accepting, !wakePending else { return }
            wakePending = true
            uv_async_send(wakeup)
        }
    }

    // MARK: Loop-thread callbacks

    /// Answers a wake-up: runs the queued closures and re-arms the timer, or shuts the loop down.
    fileprivate func handleWakeup() {
        let stillAccepting = lock.withLock { () -> Bool in
            swap(&queue, &drained)
            wakePending = false
            return accepting
        }
        runDrained()
        guard !stillAccepting else {
            // If one of those closures called `stop()`, that sent a new wake-up: the next call (which
            // runs what was queued before the stop) shuts down.
            armTimer(for: timers.deadlineToArm())
            return
        }
        // Stopping: the batch just run was everything queued before `stop()`, as nothing can be queued
        // after it.
        shutDown()
    }

    private func runDrained() {
        for action in drained {
            action.run()
        }
        drained.removeAll(keepingCapacity: true)
    }

    /// Fires the due timers, then re-arms the `uv_timer` for the next deadline.
    fileprivate func handleTimer() {
        armedFor = .max
        timers.takeDue(at: Self.monotonicNow, into: &dueTimers)
        for entry in dueTimers {
            // A timer action may stop the loop: the other due timers are dropped with the rest.
            guard !stopRequested.load(ordering: .relaxed) else { break }
            if let record = entry.record, record.isCancelled {
                continue
            }
            entry.action.run()
        }
        let next = timers.finishFiring(dueTimers, at: Self.monotonicNow)
        dueTimers.removeAll(keepingCapacity: true)
        armTimer(for: next)
    }

    /// Re-arms the `uv_timer` for the earliest timer left (stops it when none is): after a cancellation on
    /// the loop thread took the earliest away. Loop thread only.
    func rearmTimer() {
        armTimer(for: timers.deadlineToArm())
    }

    /// Starts the `uv_timer` so that it fires at `deadline` (or stops it for `Int.max`).
    private func armTimer(for deadline: Int) {
        guard !handlesClosed, deadline != armedFor else { return }
        armedFor = deadline
        guard deadline != .max else {
            uv_timer_stop(timer)
            return
        }
        // libuv counts timeouts in whole milliseconds from its cached loop time: refresh that, and
        // round up so the timer does not fire before the deadline (if it does, it is simply re-armed).
        uv_update_time(uvLoop)
        let remaining = deadline.subtractingReportingOverflow(Self.monotonicNow)
        let timeout: UInt64
        if remaining.overflow {
            timeout = deadline > 0 ? UInt64(Int.max / 1_000_000) : 0
        } else if remaining.partialValue <= 0 {
            timeout = 0
        } else {
            timeout = UInt64(remaining.partialValue / 1_000_000) + (remaining.partialValue % 1_000_000 == 0 ? 0 : 1)
        }
        uv_timer_start(timer, eventLoopTimerCallback, timeout, 0)
    }

    /// Closes every handle and drops the timers; loop thread only, once.
    private func shutDown() {
        let droppedTimers = timers.close()
        closeHandles()
        let open = pollers
        pollers = [:]
        for poller in open.values {
            let clients = poller.close()
            for client in clients {
                client.finish(.finished)
            }
        }
        // The dropped timers' closures are released here, after the handles are closed.
        _ = droppedTimers
    }

    private func closeHandles() {
        guard !handlesClosed else { return }
        handlesClosed = true
        uv_close(UnsafeMutablePointer<uv_handle_t>(OpaquePointer(timer)), freeHandleMemory)
        uv_close(UnsafeMutablePointer<uv_handle_t>(OpaquePointer(wakeup)), freeHandleMemory)
    }

    /// The current time on the loop's monotonic clock, in nanoseconds.
    @inline(__always)
    static var monotonicNow: Int {
        Int(truncatingIfNeeded: uv_hrtime())
    }

    // MARK: Polling (loop thread)

    /// Registers `client` with the poller of its file descriptor, opening one if needed.
    func attach(_ client: any PollClient) {
        guard client.markAttached() else { return }
        let descriptor = client.fileDescriptor
        let poller: FileDescriptorPoller
        if let existing = pollers[descriptor] {
            poller = existing
        } else {
            switch FileDescriptorPoller.open(descriptor, loop: self, uvLoop: uvLoop) {
            case .success(let opened):
                poller = opened
                pollers[descriptor] = opened
            case .failure(let error):
                client.finish(.failure(error))
                return
            }
        }
        poller.clients.append(client)
        reconcile(poller)
    }

    /// Brings the poller of `descriptor` up to date with its clients' demand and cancellations.
    func reconcilePoller(for descriptor: Int32) {
        guard let poller = pollers[descriptor] else { return }
        reconcile(poller)
    }

    private func reconcile(_ poller: FileDescriptorPoller) {
        var wanted: EventLoop.PollEvents = []
        poller.clients.removeAll { client in
            guard let interest = client.currentInterest() else { return true }
            wanted.formUnion(interest)
            return false
        }
        guard !poller.clients.isEmpty else {
            pollers[poller.fileDescriptor] = nil
            _ = poller.close()
            return
        }
        if let error = poller.watch(wanted) {
            fail(poller, error)
        }
    }

    /// Delivers one readiness report of `poller`'s descriptor to its clients.
    func handlePoll(_ poller: FileDescriptorPoller, status: Int32, events: Int32) {
        guard status >= 0 else {
            fail(poller, .libuv(code: status))
            return
        }
        let ready = EventLoop.PollEvents(rawValue: events)
        var interestChanged = false
        for client in poller.clients where client.deliver(ready) {
            interestChanged = true
        }
        // Only a client out of demand changes what is watched (a cancellation reconciles by itself); a
        // client cancelled during delivery may have closed the poller already.
        guard interestChanged, pollers[poller.fileDescriptor] === poller else { return }
        reconcile(poller)
    }

    private func fail(_ poller: FileDescriptorPoller, _ error: EventLoopError) {
        pollers[poller.fileDescriptor] = nil
        for client in poller.close() {
            client.finish(.failure(error))
        }
    }

    // MARK: Introspection for tests

    /// The number of open `uv_poll` handles; loop thread only.
    var openPollerCount: Int { pollers.count }

    /// The deadline the `uv_timer` is started for (`Int.max`: stopped); loop thread only.
    var timerArmedFor: Int { armedFor }

    /// Whether the loop has closed, and what `uv_loop_close` returned.
    var closeState: (closed: Bool, status: Int32) {
        lock.withLock { (closed, closeStatus) }
    }
}

// MARK: - C callbacks

/// The `uv_async` callback: its handle's `data` is the (unretained) loop, alive while `run()` runs.
private func eventLoopWakeupCallback(_ handle: UnsafeMutablePointer<uv_async_t>?) {
    guard let context = handle?.pointee.data else { return }
    Unmanaged<EventLoop>.fromOpaque(context).takeUnretainedValue().handleWakeup()
}

/// The `uv_timer` callback: its handle's `data` is the (unretained) loop, alive while `run()` runs.
private func eventLoopTimerCallback(_ handle: UnsafeMutablePointer<uv_timer_t>?) {
    guard let context = handle?.pointee.data else { return }
    Unmanaged<EventLoop>.fromOpaque(context).takeUnretainedValue().handleTimer()
}

/// The close callback of every handle RippleLoop allocates: frees the handle's memory.
func freeHandleMemory(_ handle: UnsafeMutablePointer<uv_handle_t>?) {
    guard let handle else { return }
    UnsafeMutableRawPointer(handle).deallocate()
}

/// The lazily started shared loop.
private enum SharedEventLoop {
    /// The thread running the shared loop, if it could be started.
    static let owner: EventLoopThread? = try? EventLoopThread(name: "ripple-shared")

    static let loop: EventLoop = {
        if let owner {
            return owner.loop
        }
        let stopped = EventLoop(openingLibUV: ())
        stopped.stop()
        return stopped
    }()
}
