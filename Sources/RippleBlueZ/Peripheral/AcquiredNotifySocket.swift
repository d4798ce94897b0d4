import CLibUV
import Ripple
import RippleDBus
import RippleLoop

#if canImport(Glibc)
import Glibc
#endif

/// The application's end of the socket a served characteristic hands bluetoothd in answer to
/// `AcquireNotify` (`SOCK_SEQPACKET`: one notification per packet).
///
/// bluetoothd reads each packet and notifies it to every subscribed central; it closes its end when the
/// last central unsubscribes or the link drops, which ends the acquisition. Writes never block: a packet
/// that finds the socket full is dropped (the caller counts it), and the loop then watches for room, once.
final class AcquiredNotifySocket: Sendable {
    /// What became of one packet.
    enum SendOutcome {
        /// bluetoothd's end has it.
        case sent
        /// The socket is full: the packet was dropped (``watchForRoom()`` then waits for room).
        case full
        /// The socket is closed (or bluetoothd's end is gone): the packet was dropped.
        case closed
    }

    private let fileDescriptor: Int32
    private let lock = Lock()
    nonisolated(unsafe) private var watch: AnyCancellable?
    /// The watch for room after a full socket, while one is wanted: its number, and its subscription once
    /// made.
    nonisolated(unsafe) private var roomWatchID: Int?
    nonisolated(unsafe) private var nextRoomWatchID = 0
    nonisolated(unsafe) private var roomWatch: AnyCancellable?
    nonisolated(unsafe) private var watchingLoop: EventLoop?
    nonisolated(unsafe) private var room: (@Sendable () -> Void)?
    nonisolated(unsafe) private var isOpen = true

    private init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    /// A new socket pair: the application's end, and bluetoothd's end to send in the reply.
    ///
    /// - Throws: ``DBusError`` `Failed` when the pair cannot be made.
    static func make() throws(DBusError) -> (AcquiredNotifySocket, DBusFileDescriptor) {
        var fds: [Int32] = [-1, -1]
        let made = fds.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return socketpair(
                AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
                0, base)
        }
        guard made == 0 else {
            throw .remote(name: "org.bluez.Error.Failed", message: String(cString: strerror(errno)))
        }
        defer { Glibc.close(fds[1]) }
        do {
            let theirs = try DBusFileDescriptor(duplicating: fds[1])
            return (AcquiredNotifySocket(fileDescriptor: fds[0]), theirs)
        } catch {
            Glibc.close(fds[0])
            throw error
        }
    }

    /// Watches for bluetoothd closing its end: `closed` runs once then (on the loop thread); and, after a
    /// send that found the socket full, for room: `room` runs once then (on the loop thread).
    func watch(
        on loop: EventLoop, closed: @escaping @Sendable () -> Void, room: @escaping @Sendable () -> Void
    ) {
        let subscription = loop.poll(fileDescriptor, for: [.disconnect]).sink(
            receiveCompletion: { [weak self] _ in if self?.close() == true { closed() } },
            receiveValue: { [weak self] _ in if self?.close() == true { closed() } })
        let keep = lock.withLock { () -> Bool in
            guard isOpen else { return false }
            watch = subscription
            watchingLoop = loop
            self.room = room
            return true
        }
        if !keep { subscription.cancel() }
    }

    /// Writes one notification without blocking.
    func send(_ bytes: [UInt8]) -> SendOutcome {
        let outcome = lock.withLock { () -> SendOutcome in
            guard isOpen else { return .closed }
            let sent = bytes.withUnsafeBytes {
                Glibc.send(fileDescriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
            }
            if sent == bytes.count { return .sent }
            return sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) ? .full : .closed
        }
        return outcome
    }

    /// Watches, once, for the socket to take packets again: the `room` given to
    /// ``watch(on:closed:room:)`` runs then. Level-triggered: room that came back before the watch starts
    /// is seen at once. One watch at a time (a call while one is on does nothing).
    func watchForRoom() {
        let start = lock.withLock { () -> (EventLoop, Int)? in
            guard isOpen, roomWatchID == nil, room != nil, let watchingLoop else { return nil }
            // The watch is wanted from now: a second full send does not start another.
            nextRoomWatchID += 1
            roomWatchID = nextRoomWatchID
            return (watchingLoop, nextRoomWatchID)
        }
        guard let (loop, id) = start else { return }
        let subscription = loop.poll(fileDescriptor, for: [.writable]).first().sink(
            receiveCompletion: { _ in }, receiveValue: { [weak self] _ in self?.roomCame(id) })
        let keep = lock.withLock { () -> Bool in
            // Room may have come already, or the socket closed.
            guard isOpen, roomWatchID == id else { return false }
            roomWatch = subscription
            return true
        }
        guard !keep else { return }
        subscription.cancel()
        // As in `close()`: the descriptor stays open until the loop has removed this watch too.
        loop.schedule { withExtendedLifetime(self) {} }
    }

    /// The watch `id` saw room.
    private func roomCame(_ id: Int) {
        let (room, ended) = lock.withLock { () -> ((@Sendable () -> Void)?, AnyCancellable?) in
            guard isOpen, roomWatchID == id else { return (nil, nil) }
            roomWatchID = nil
            defer { roomWatch = nil }
            return (self.room, roomWatch)
        }
        // Released outside the lock (its value is delivered: nothing more to cancel).
        withExtendedLifetime(ended) {}
        room?()
    }

    /// Closes the application's end (bluetoothd sees it hang up at once); returns whether it was open.
    @discardableResult
    func close() -> Bool {
        let (wasOpen, subscription, roomSubscription, loop) = lock.withLock {
            () -> (Bool, AnyCancellable?, AnyCancellable?, EventLoop?) in
            defer {
                isOpen = false
                watch = nil
                roomWatch = nil
                roomWatchID = nil
                room = nil
            }
            return (isOpen, watch, roomWatch, watchingLoop)
        }
        guard wasOpen else { return false }
        subscription?.cancel()
        roomSubscription?.cancel()
        shutdown(fileDescriptor, Int32(SHUT_RDWR))
        // The loop runs this after the watch's removal, which the cancel queued first; `deinit` closes the
        // descriptor (libuv must not find a watched descriptor closed).
        loop?.schedule { withExtendedLifetime(self) {} }
        return true
    }

    deinit {
        Glibc.close(fileDescriptor)
    }
}
