import Ripple
import RippleLoop

#if canImport(Glibc)
import Glibc
#endif

/// The client's end of an `AcquireNotify` socket (`SOCK_SEQPACKET`: one notification per packet),
/// read on the loop thread whenever it is readable.
///
/// bluetoothd writes each notification of the characteristic into it and nothing else (no `Value`
/// change on the bus), and closes its end when the link drops; closing ours releases the acquisition.
final class NotificationSocket: Sendable {
    private let fileDescriptor: Int32
    private let loop: EventLoop
    /// The largest packet: the link's ATT MTU, and never less than a full attribute value.
    private let capacity: Int
    private let lock = Lock()
    nonisolated(unsafe) private var watch: AnyCancellable?
    nonisolated(unsafe) private var isOpen = true

    /// Takes ownership of `fileDescriptor` (closed by ``close()``).
    init(fileDescriptor: Int32, mtu: Int, loop: EventLoop) {
        self.fileDescriptor = fileDescriptor
        self.loop = loop
        self.capacity = Swift.max(mtu, 512)
    }

    /// Starts reading: `packets` gets what each readiness brings, in batches (on the loop thread, in order), and
    /// `closed` runs once when bluetoothd closes its end or the socket fails.
    func start(packets: @escaping @Sendable ([[UInt8]]) -> Void, closed: @escaping @Sendable () -> Void) {
        let subscription = loop.poll(fileDescriptor, for: [.readable, .disconnect]).sink(
            receiveCompletion: { [weak self] _ in
                if self?.markClosed() == true { closed() }
            },
            receiveValue: { [weak self] _ in
                guard let self else { return }
                if self.readAvailable(packets), self.markClosed() { closed() }
            })
        let keep = lock.withLock { () -> Bool in
            guard isOpen else { return false }
            watch = subscription
            return true
        }
        if !keep { subscription.cancel() }
    }

    /// The most packets handed over at once: under a flood the socket may hold thousands, and small
    /// batches keep the memory they take small and reused.
    private static let batchLimit = 64

    /// Reads every waiting packet without blocking, handing them to `packets` in batches; returns whether
    /// the other end is gone.
    private func readAvailable(_ packets: ([[UInt8]]) -> Void) -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var batch: [[UInt8]] = []
            batch.reserveCapacity(Self.batchLimit)
            while true {
                let count = recv(fileDescriptor, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
                if count > 0 {
                    batch.append(Array(buffer[0..<count]))
                    if batch.count == Self.batchLimit {
                        packets(batch)
                        batch.removeAll(keepingCapacity: true)
                    }
                    continue
                }
                // errno is read before anything else can change it.
                let failure = count < 0 ? errno : 0
                if failure == EINTR { continue }
                if !batch.isEmpty { packets(batch) }
                return count == 0 || !(failure == EAGAIN || failure == EWOULDBLOCK)
            }
        }
    }

    /// Whether this call is the one that ends the socket.
    private func markClosed() -> Bool {
        lock.withLock {
            defer { isOpen = false }
            return isOpen
        }
    }

    /// Stops reading; the descriptor is closed once the loop has dropped its watch (so that libuv never
    /// watches a closed or reused descriptor), or when the loop is gone. Idempotent.
    func close() {
        let subscription = lock.withLock { () -> AnyCancellable? in
            isOpen = false
            defer { watch = nil }
            return watch
        }
        subscription?.cancel()
        // The loop runs this after the watch's removal, which the cancel queued first; `deinit` closes.
        loop.schedule { withExtendedLifetime(self) {} }
    }

    deinit {
        Glibc.close(fileDescriptor)
    }
}
