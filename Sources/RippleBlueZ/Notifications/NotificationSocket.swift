import CLibUV
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
///
/// Each readiness reads one packet and hands it on at once, as a reader of one socket in C does (a
/// notification alone in the socket does not wait for a read that finds it empty), then takes what else
/// is waiting in one system call per ``slotCount`` packets (`recvmmsg`): a flood costs a system call per
/// ``slotCount`` notifications, not one per notification.
final class NotificationSocket: Sendable {
    private let fileDescriptor: Int32
    private let loop: EventLoop
    /// The largest packet: the link's ATT MTU, and never less than a full attribute value.
    private let capacity: Int
    /// Where the packets are read into: ``slotCount`` slots of `capacity` bytes, and the headers (with
    /// their vectors) that point `recvmmsg` at them and get the lengths back; made once, used on the loop
    /// thread only (by the one poll subscription), freed by `deinit`.
    nonisolated(unsafe) private let slots: UnsafeMutableRawPointer
    nonisolated(unsafe) private let headers: UnsafeMutablePointer<ripple_packet_header>
    nonisolated(unsafe) private let vectors: UnsafeMutablePointer<iovec>
    private let lock = Lock()
    nonisolated(unsafe) private var watch: AnyCancellable?
    nonisolated(unsafe) private var isOpen = true

    /// The most packets read at once: a readiness under a flood finds thousands, and the area they are
    /// read into is made once per socket, so it stays small.
    private static let slotCount = 32

    /// Takes ownership of `fileDescriptor` (closed by ``close()``).
    init(fileDescriptor: Int32, mtu: Int, loop: EventLoop) {
        self.fileDescriptor = fileDescriptor
        self.loop = loop
        self.capacity = Swift.max(mtu, 512)
        slots = .allocate(byteCount: capacity * Self.slotCount, alignment: 16)
        headers = .allocate(capacity: Self.slotCount)
        vectors = .allocate(capacity: Self.slotCount)
        ripple_prepare_packet_headers(
            headers, vectors, slots.assumingMemoryBound(to: UInt8.self), UInt32(capacity), UInt32(Self.slotCount))
    }

    /// Starts reading: `packets` gets what each read brings (on the loop thread, in order; they are valid
    /// during the call only), and `closed` runs once when bluetoothd closes its end or the socket fails.
    func start(packets: @escaping @Sendable (ReceivedPackets) -> Void, closed: @escaping @Sendable () -> Void) {
        let reader = SocketReader(socket: self, packets: packets, closed: closed)
        loop.poll(fileDescriptor, for: [.readable, .disconnect]).subscribe(reader)
        guard let subscription = reader.takeSubscription() else { return }
        let keep = lock.withLock { () -> Bool in
            guard isOpen else { return false }
            watch = AnyCancellable(subscription)
            return true
        }
        if !keep { subscription.cancel() }
    }

    /// Reads what a readiness of the socket brings; runs `closed` if the socket ended. Loop thread only.
    fileprivate func read(
        _ packets: (ReceivedPackets) -> Void, closed: () -> Void
    ) {
        if readAvailable(packets), markClosed() { closed() }
    }

    /// Runs `closed` if the socket has not ended yet.
    fileprivate func end(closed: () -> Void) {
        if markClosed() { closed() }
    }

    /// Reads every waiting packet without blocking, handing each read's packets to `packets`; returns
    /// whether the other end is gone. Loop thread only.
    private func readAvailable(_ packets: (ReceivedPackets) -> Void) -> Bool {
        // The first packet is read alone and goes on at once: alone in the socket (notifications at a
        // steady pace), it does not wait for a read that finds the socket empty.
        var length = 0
        var failure: Int32 = 0
        repeat {
            length = recv(fileDescriptor, slots, capacity, Int32(MSG_DONTWAIT))
            // errno is read before anything else can change it.
            failure = length < 0 ? errno : 0
        } while failure == EINTR
        if length < 0 { return !(failure == EAGAIN || failure == EWOULDBLOCK) }
        // A packet of no bytes is the other end's close.
        if length == 0 { return true }
        headers[0].length = UInt32(length)
        packets(ReceivedPackets(slots: slots, slotSize: capacity, headers: headers, count: 1))
        // What else is waiting, ``slotCount`` packets per system call.
        while true {
            let count = Int(ripple_receive_packets(fileDescriptor, headers, UInt32(Self.slotCount)))
            guard count > 0 else {
                // errno is read before anything else can change it.
                let failure = count < 0 ? errno : EAGAIN
                if failure == EINTR { continue }
                return !(failure == EAGAIN || failure == EWOULDBLOCK)
            }
            // A packet of no bytes is the other end's close (what follows it is more of the same).
            var read = 0
            while read < count, headers[read].length > 0 { read += 1 }
            if read > 0 {
                packets(ReceivedPackets(slots: slots, slotSize: capacity, headers: headers, count: read))
            }
            if read < count { return true }
            // Fewer than asked for: the socket was empty, and the poll reports the next packet.
            if count < Self.slotCount { return false }
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
        slots.deallocate()
        headers.deallocate()
        vectors.deallocate()
    }
}

/// A socket's subscriber to its descriptor's readiness: each readiness goes straight to the socket's read
/// (no sink and no closure in between: this runs once per notification when they come one at a time).
private final class SocketReader: Subscriber {
    typealias Input = EventLoop.PollEvents
    typealias Failure = EventLoopError

    let combineIdentifier = CombineIdentifier()
    /// The socket, while it lives (it keeps the subscription, which keeps this reader).
    private weak let socket: NotificationSocket?
    private let packets: (ReceivedPackets) -> Void
    private let closed: () -> Void
    /// The subscription, from `receive(subscription:)` until the socket takes it.
    private var subscription: (any Subscription)?

    init(
        socket: NotificationSocket, packets: @escaping (ReceivedPackets) -> Void, closed: @escaping () -> Void
    ) {
        self.socket = socket
        self.packets = packets
        self.closed = closed
    }

    /// The subscription received while subscribing (on the subscribing thread), handed over once.
    func takeSubscription() -> (any Subscription)? {
        defer { subscription = nil }
        return subscription
    }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        subscription.request(.unlimited)
    }

    func receive(_ input: EventLoop.PollEvents) -> Subscribers.Demand {
        socket?.read(packets, closed: closed)
        return .none
    }

    func receive(completion: Subscribers.Completion<EventLoopError>) {
        socket?.end(closed: closed)
    }
}
