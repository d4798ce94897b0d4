import CLibUV
import Ripple
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// An ``EventLoop`` running on a thread of its own, from creation until ``stop()`` or release.
///
/// ```swift
/// let owner = try EventLoopThread(name: "ble")
/// owner.loop.schedule { /* on the thread "ble" */ }
/// owner.stop()   // runs what was scheduled before, closes the loop, waits for the thread
/// ```
///
/// Releasing the last reference stops the loop and waits for the thread too (except when that happens
/// on the loop thread itself: then the thread finishes on its own).
public final class EventLoopThread: Sendable {
    /// The loop the thread runs.
    public let loop: EventLoop

    private let lock = Lock()
    /// The running thread, until it is joined or detached.
    private nonisolated(unsafe) var thread: pthread_t?

    /// Creates a loop and starts a thread named `name` (at most 15 bytes are kept) that runs it.
    ///
    /// - Parameter name: the thread's name.
    /// - Throws: ``EventLoopError/libuv(code:)`` if libuv cannot create the loop and
    ///   ``EventLoopError/threadCreationFailed(errno:)`` if the thread cannot be started.
    public init(name: String = "ripple-loop") throws(EventLoopError) {
        let loop = try EventLoop()
        self.loop = loop
        let start = Unmanaged.passRetained(LoopThreadStart(loop: loop, name: name)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, eventLoopThreadMain, start)
        guard status == 0 else {
            Unmanaged<LoopThreadStart>.fromOpaque(start).release()
            loop.stop()
            throw .threadCreationFailed(errno: status)
        }
        self.thread = thread
    }

    deinit {
        stop()
    }

    /// Stops the loop (see ``EventLoop/stop()``: what was scheduled before still runs) and waits until
    /// it has closed and its thread has ended.
    ///
    /// Safe from any thread. Called on the loop thread itself, or while another call is already waiting,
    /// it only asks the loop to stop and returns.
    public func stop() {
        loop.stop()
        let running = lock.withLock { () -> pthread_t? in
            let running = thread
            thread = nil
            return running
        }
        guard let running else { return }
        if pthread_equal(running, pthread_self()) != 0 {
            pthread_detach(running)
        } else {
            pthread_join(running, nil)
        }
    }
}

/// What a new loop thread needs; passed retained through `pthread_create`.
private final class LoopThreadStart {
    let loop: EventLoop
    let name: String

    init(loop: EventLoop, name: String) {
        self.loop = loop
        self.name = name
    }
}

/// The body of a loop thread: names the thread, then runs its loop until it stops.
private func eventLoopThreadMain(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let context else { return nil }
    let start = Unmanaged<LoopThreadStart>.fromOpaque(context).takeRetainedValue()
    // Linux limits thread names to 15 bytes.
    var name = Array(start.name.utf8.prefix(15)).map { CChar(bitPattern: $0) }
    name.append(0)
    _ = ripple_set_current_thread_name(name)
    do {
        try start.loop.run()
    } catch {
        // A fresh loop cannot already be running: nothing to do.
    }
    return nil
}
