import Ripple
import RippleDBus
import RippleLoop

#if canImport(Glibc)
import Glibc
#endif

/// One `AcquireNotify` or `AcquireWrite` socket pair: the client's end goes out in the reply, the
/// simulator keeps its own, watches it on the loop (packets written by the client, the client closing
/// its end), and closes it when released (loop-confined).
final class AcquiredSocket: Sendable {
    /// The simulator's end.
    let fd: Int32
    nonisolated(unsafe) private var watch: AnyCancellable?
    /// The loop watching the descriptor, once watched.
    nonisolated(unsafe) private var watchingLoop: EventLoop?
    nonisolated(unsafe) private var emitter: NotificationEmitter?
    nonisolated(unsafe) private(set) var isOpen = true

    /// A new `SOCK_SEQPACKET` pair: the simulator's end, and the client's end as a descriptor to send.
    static func make() throws(BlueZError) -> (AcquiredSocket, DBusFileDescriptor) {
        var fds: [Int32] = [-1, -1]
        let made = fds.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, base)
        }
        guard made == 0 else { throw .failed(String(cString: strerror(errno))) }
        defer { Glibc.close(fds[1]) }
        do {
            let clientEnd = try DBusFileDescriptor(duplicating: fds[1])
            return (AcquiredSocket(fd: fds[0]), clientEnd)
        } catch {
            Glibc.close(fds[0])
            throw .failed("cannot pass the socket: \(error)")
        }
    }

    private init(fd: Int32) {
        self.fd = fd
    }

    /// The simulator's end of a socket an application handed over (a GATT application's `AcquireNotify`
    /// reply), or nil when the descriptor was taken already.
    static func adopting(_ descriptor: DBusFileDescriptor) -> AcquiredSocket? {
        descriptor.take().map(AcquiredSocket.init(fd:))
    }

    /// Watches the simulator's end on `loop`: `packet` gets each packet the client writes, `closed` runs
    /// once when the client closes its end.
    func watch(on loop: EventLoop, packet: @escaping ([UInt8]) -> Void, closed: @escaping () -> Void) {
        watchingLoop = loop
        watch = loop.poll(fd, for: [.readable, .disconnect]).sink(
            receiveCompletion: { [weak self] _ in
                guard let self, self.isOpen else { return }
                closed()
            },
            receiveValue: { [weak self] _ in
                guard let self, self.isOpen else { return }
                var buffer = [UInt8](repeating: 0, count: 4096)
                while self.isOpen {
                    let received = buffer.withUnsafeMutableBytes {
                        recv(self.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
                    }
                    if received > 0 {
                        packet(Array(buffer.prefix(received)))
                    } else if received == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                        closed()
                        return
                    } else {
                        return
                    }
                }
            })
    }

    /// Starts writing `source`'s notifications from a thread of their own.
    func startEmitting(_ source: NotificationSource, maximumLength: Int, statistics: SimulatorStatistics) {
        emitter?.stop()
        emitter = NotificationEmitter(socket: fd, source: source, maximumLength: maximumLength, statistics: statistics)
    }

    /// Writes one notification without blocking the loop; dropped when the client's buffer is full.
    func send(_ value: [UInt8]) {
        guard isOpen else { return }
        _ = value.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
    }

    /// Stops the emitter and the watch and closes the simulator's end (the client sees it hang up).
    /// Idempotent.
    ///
    /// The client sees the hang-up at once (`shutdown`); the descriptor itself is closed only after the
    /// loop has dropped its watch (the watch's removal is queued on the loop by the cancel, and so is
    /// the close, after it): libuv aborts when it finds a watched descriptor closed, and a reused number
    /// would be watched by mistake.
    func close() {
        guard isOpen else { return }
        isOpen = false
        watch?.cancel()
        watch = nil
        emitter?.stop()
        emitter = nil
        shutdown(fd, Int32(SHUT_RDWR))
        let descriptor = DescriptorCloser(fd)
        // Closed when the loop has run this (or dropped it, when it stops).
        watchingLoop?.schedule { withExtendedLifetime(descriptor) {} }
    }

    deinit {
        close()
    }
}

/// Closes a descriptor when released.
private final class DescriptorCloser: Sendable {
    private let fd: Int32

    init(_ fd: Int32) {
        self.fd = fd
    }

    deinit {
        Glibc.close(fd)
    }
}
