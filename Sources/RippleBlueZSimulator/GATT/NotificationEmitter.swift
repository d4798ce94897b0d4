import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Writes a ``NotificationSource``'s notifications to the simulator's end of an `AcquireNotify` socket,
/// from a thread of its own, as fast as the client reads them (waiting for the socket to take more is the
/// flow control) or
/// paced at the source's rate; it counts what it sent and the CPU time it took.
final class NotificationEmitter: Sendable {
    private let socket: Int32
    private let source: NotificationSource
    /// The most bytes a notification carries (the link's MTU − 3): a longer payload is cut to it.
    private let maximumLength: Int
    private let statistics: SimulatorStatistics
    private let stopRequested = Atomic<Bool>(false)
    private let thread: Mutex<pthread_t?> = Mutex(nil)

    /// Starts emitting on `socket` (which stays the caller's to close, after ``stop()``), each notification
    /// cut to `maximumLength` bytes.
    init(socket: Int32, source: NotificationSource, maximumLength: Int, statistics: SimulatorStatistics) {
        self.socket = socket
        self.source = source
        self.maximumLength = Swift.max(maximumLength, 0)
        self.statistics = statistics
        let box = Unmanaged.passRetained(self).toOpaque()
        var handle = pthread_t()
        let started = pthread_create(
            &handle, nil,
            { argument in
                guard let argument else { return nil }
                let emitter = Unmanaged<NotificationEmitter>.fromOpaque(argument).takeRetainedValue()
                emitter.run()
                return nil
            }, box)
        if started == 0 {
            thread.withLock { $0 = handle }
        } else {
            Unmanaged<NotificationEmitter>.fromOpaque(box).release()
        }
    }

    /// Stops the thread (waking it from a blocked `send` by shutting the socket down) and waits for it.
    /// Idempotent.
    func stop() {
        stopRequested.store(true, ordering: .releasing)
        shutdown(socket, Int32(SHUT_RDWR))
        let handle = thread.withLock { handle -> pthread_t? in
            defer { handle = nil }
            return handle
        }
        if let handle {
            pthread_join(handle, nil)
        }
    }

    private func run() {
        var recordedCPU = SimulatorStatistics.threadCPUNanoseconds()
        var sent = 0
        var unrecorded = 0
        let count = source.count ?? Int.max
        var interval = 0
        if let rate = source.rate { interval = Swift.max(1, Int(1e9 / rate)) }
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        var buffer: [UInt8]
        var numbered = false
        var timestamped = false
        switch source.payload {
        case .numbered(let size):
            buffer = source.payload(sequence: 0)
            numbered = size >= 4
        case .timestamped:
            buffer = source.payload(sequence: 0)
            timestamped = true
        default:
            buffer = []
        }
        while sent < count, !stopRequested.load(ordering: .acquiring) {
            let sequence = UInt32(truncatingIfNeeded: sent)
            if numbered {
                buffer[0] = UInt8(truncatingIfNeeded: sequence)
                buffer[1] = UInt8(truncatingIfNeeded: sequence >> 8)
                buffer[2] = UInt8(truncatingIfNeeded: sequence >> 16)
                buffer[3] = UInt8(truncatingIfNeeded: sequence >> 24)
            } else if !timestamped {
                buffer = source.payload(sequence: sequence)
            }
            if interval > 0 {
                Self.advance(&deadline, by: interval)
                while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
                if stopRequested.load(ordering: .acquiring) { break }
            }
            if timestamped {
                // Stamped after the pacing wait, just before the send, so that latency is the client's.
                NotificationSource.stamp(&buffer, sequence: sequence)
            }
            let result = buffer.withUnsafeBytes {
                send(socket, $0.baseAddress, Swift.min($0.count, maximumLength), Int32(MSG_NOSIGNAL))
            }
            if result < 0 {
                if errno == EINTR { continue }
                // The loop's watch makes the socket non-blocking: wait until the client has read.
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    var descriptor = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&descriptor, 1, 100)
                    if descriptor.revents & Int16(POLLHUP | POLLERR) != 0 { break }
                    continue
                }
                break
            }
            sent += 1
            unrecorded += 1
            if unrecorded == 1024 {
                // Counts and CPU time are published as the emitter goes, so that a reading taken while it
                // runs (a benchmark's) is current to within 1,024 notifications.
                let cpu = SimulatorStatistics.threadCPUNanoseconds()
                statistics.recordSocketNotifications(unrecorded)
                statistics.recordEmitterCPU(nanoseconds: cpu - recordedCPU)
                recordedCPU = cpu
                unrecorded = 0
            }
        }
        statistics.recordSocketNotifications(unrecorded)
        statistics.recordEmitterCPU(nanoseconds: SimulatorStatistics.threadCPUNanoseconds() - recordedCPU)
    }

    private static func advance(_ time: inout timespec, by nanoseconds: Int) {
        let total = time.tv_nsec + nanoseconds
        time.tv_sec += total / 1_000_000_000
        time.tv_nsec = total % 1_000_000_000
    }
}
