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
/// that finds the socket full is dropped and counted.
final class AcquiredNotifySocket: Sendable {
    private let fileDescriptor: Int32
    private let lock = Lock()
    nonisolated(unsafe) private var watch: AnyCancellable?
    nonisolated(unsafe) private var watchingLoop: EventLoop?
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

    /// Watches for bluetoothd closing its end: `closed` runs once then (on the loop thread).
    func watch(on loop: EventLoop, closed: @escaping @Sendable () -> Void) {
        let subscription = loop.poll(fileDescriptor, for: [.disconnect]).sink(
            receiveCompletion: { [weak self] _ in if self?.close() == true { closed() } },
            receiveValue: { [weak self] _ in if self?.close() == true { closed() } })
        let keep = lock.withLock { () -> Bool in
            guard isOpen else { return false }
            watch = subscription
            watchingLoop = loop
            return true
        }
        if !keep { subscription.cancel() }
    }

    /// Writes one notification without blocking; returns false when it was dropped (the socket is full or
    /// closed).
    func send(_ bytes: [UInt8]) -> Bool {
        lock.withLock { () -> Bool in
            guard isOpen else { return false }
            let sent = bytes.withUnsafeBytes {
                Glibc.send(fileDescriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
            }
            return sent == bytes.count
        }
    }

    /// Closes the application's end (bluetoothd sees it hang up at once); returns whether it was open.
    @discardableResult
    func close() -> Bool {
        let (wasOpen, subscription, loop) = lock.withLock { () -> (Bool, AnyCancellable?, EventLoop?) in
            defer {
                isOpen = false
                watch = nil
            }
            return (isOpen, watch, watchingLoop)
        }
        guard wasOpen else { return false }
        subscription?.cancel()
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
