import CLibUV
import Ripple

/// A poll subscription as the loop thread sees it.
protocol PollClient: AnyObject, Sendable {
    /// The descriptor the client polls.
    var fileDescriptor: Int32 { get }
    /// Records that the client is registered with its poller; false if it was cancelled first.
    func markAttached() -> Bool
    /// The events the client waits for now (empty while it has no demand), or `nil` once it has ended.
    func currentInterest() -> EventLoop.PollEvents?
    /// Hands the ready events the client asked for to its subscriber if it has demand; loop thread.
    /// Returns whether the client's interest may have changed (it has no demand left), so that the poller
    /// must be brought up to date; cancellations bring it up to date themselves.
    func deliver(_ ready: EventLoop.PollEvents) -> Bool
    /// Ends the subscription with `completion`, unless it has already ended.
    func finish(_ completion: Subscribers.Completion<EventLoopError>)
}

/// The one `uv_poll` handle of a file descriptor and the subscriptions sharing it.
///
/// libuv allows a single poll handle per descriptor and loop, so every subscription to the same
/// descriptor shares this one; it watches the union of the events its clients have demand for, stops
/// watching while none has demand (readiness is level-triggered, so nothing is lost: it is reported
/// again when demand returns), and is closed when its last client ends. Loop thread only: its state
/// skips the dynamic exclusivity check (a thread-local look-up per access, on each readiness).
final class FileDescriptorPoller {
    /// The descriptor polled.
    let fileDescriptor: Int32
    /// The loop that owns this poller. It outlives it (the loop closes its pollers before it closes, and
    /// a closed poller's handle no longer leads here), so it is borrowed, unretained: no reference count is
    /// touched on each readiness (an `unowned(unsafe)` reference was still retained and released around
    /// the call, on the slow, side-table path, as the loop has weak references).
    let loop: Unmanaged<EventLoop>
    /// The subscriptions sharing the handle.
    @exclusivity(unchecked) var clients: [any PollClient] = []
    /// The events `uv_poll_start` was last given; empty while stopped.
    @exclusivity(unchecked) private var watched: EventLoop.PollEvents = []
    /// The handle; its `data` is this poller, unretained (the loop's table of pollers keeps it alive).
    private let handle: UnsafeMutablePointer<uv_poll_t>
    @exclusivity(unchecked) private var isClosed = false

    private init(fileDescriptor: Int32, loop: EventLoop, handle: UnsafeMutablePointer<uv_poll_t>) {
        self.fileDescriptor = fileDescriptor
        self.loop = Unmanaged.passUnretained(loop)
        self.handle = handle
        handle.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    /// Opens a poll handle for `descriptor`; libuv also puts the descriptor in non-blocking mode.
    static func open(
        _ descriptor: Int32,
        loop: EventLoop,
        uvLoop: UnsafeMutablePointer<uv_loop_t>
    ) -> Result<FileDescriptorPoller, EventLoopError> {
        guard descriptor >= 0 else {
            return .failure(.libuv(code: UV_EBADF.rawValue))
        }
        let handle = UnsafeMutablePointer<uv_poll_t>.allocate(capacity: 1)
        let status = uv_poll_init(uvLoop, handle, descriptor)
        guard status == 0 else {
            // A failed init leaves the handle unregistered: nothing to close.
            handle.deallocate()
            return .failure(.libuv(code: status))
        }
        return .success(FileDescriptorPoller(fileDescriptor: descriptor, loop: loop, handle: handle))
    }

    /// Watches `events` (stops watching for an empty set); returns libuv's error if it refuses.
    func watch(_ events: EventLoop.PollEvents) -> EventLoopError? {
        guard !isClosed, events != watched else { return nil }
        let status =
            events.isEmpty ? uv_poll_stop(handle) : uv_poll_start(handle, events.rawValue, fileDescriptorPollCallback)
        guard status == 0 else { return .libuv(code: status) }
        watched = events
        return nil
    }

    /// Closes the handle (its memory is freed in the close callback) and returns the clients, which
    /// the caller must finish.
    func close() -> [any PollClient] {
        guard !isClosed else { return [] }
        isClosed = true
        handle.pointee.data = nil
        uv_close(UnsafeMutablePointer<uv_handle_t>(OpaquePointer(handle)), freeHandleMemory)
        let ended = clients
        clients = []
        return ended
    }
}

/// The `uv_poll` callback: its handle's `data` is the poller, or `nil` once it is closing.
private func fileDescriptorPollCallback(_ handle: UnsafeMutablePointer<uv_poll_t>?, _ status: Int32, _ events: Int32) {
    guard let context = handle?.pointee.data else { return }
    Unmanaged<FileDescriptorPoller>.fromOpaque(context)._withUnsafeGuaranteedRef { poller in
        poller.loop._withUnsafeGuaranteedRef { $0.handlePoll(poller, status: status, events: events) }
    }
}
