import Glibc
import Ripple
import RippleLoop
import RippleTestSupport
import Testing

@testable import RippleBlueZ

/// The client's end of an `AcquireNotify` socket read on the loop: every packet, whole and in order,
/// however many each readiness finds, and the other end's close once, after the packets sent before it.
@Suite struct NotificationSocketTests {
    /// What a socket handed on: the packets, the size of each read, and the closes.
    private struct Seen {
        var packets: [[UInt8]] = []
        var reads: [Int] = []
        var closes = 0
        var waiter: (count: Int, continuation: CheckedContinuation<Void, Never>)?
    }

    /// A connected pair of `SOCK_SEQPACKET` sockets (what bluetoothd hands over), close-on-exec.
    private static func seqpacketPair() throws -> (Int32, Int32) {
        var descriptors: [Int32] = [-1, -1]
        let type = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        try #require(socketpair(AF_UNIX, type, 0, &descriptors) == 0)
        return (descriptors[0], descriptors[1])
    }

    /// Packet `index`: `index % 40 + 1` bytes, each `index &+ offset`.
    private static func packet(_ index: Int) -> [UInt8] {
        (0..<(index % 40 + 1)).map { UInt8(truncatingIfNeeded: index &+ $0) }
    }

    private static func send(_ packet: [UInt8], to descriptor: Int32) throws {
        let sent = packet.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }
        try #require(sent == packet.count)
    }

    /// Starts a socket on `loop` that records into `seen`, and waits until `events` packets and closes
    /// have been recorded.
    private static func read(
        _ descriptor: Int32, on loop: EventLoop, into seen: LockedBox<Seen>, until events: Int
    ) async -> NotificationSocket {
        let socket = NotificationSocket(fileDescriptor: descriptor, mtu: 23, loop: loop)
        let resumeIfDone: @Sendable (inout Seen) -> CheckedContinuation<Void, Never>? = { seen in
            guard let waiter = seen.waiter, seen.packets.count + seen.closes >= waiter.count else { return nil }
            seen.waiter = nil
            return waiter.continuation
        }
        await withCheckedContinuation { continuation in
            seen.withLock { $0.waiter = (events, continuation) }
            socket.start(
                packets: { packets in
                    seen.withLock { seen in
                        seen.packets.append(contentsOf: packets)
                        seen.reads.append(packets.count)
                        return resumeIfDone(&seen)
                    }?.resume()
                },
                closed: {
                    seen.withLock { seen in
                        seen.closes += 1
                        return resumeIfDone(&seen)
                    }?.resume()
                })
        }
        return socket
    }

    @Test func everyPacketArrivesWholeAndInOrderWhenAReadinessFindsMoreThanOneReadTakes() async throws {
        let thread = try EventLoopThread(name: "socket-test")
        defer { thread.stop() }
        let (ours, theirs) = try Self.seqpacketPair()
        defer { close(theirs) }
        let expected = (0..<100).map(Self.packet)
        for packet in expected { try Self.send(packet, to: theirs) }

        let seen = LockedBox(Seen())
        let socket = await Self.read(ours, on: thread.loop, into: seen, until: 100)
        defer { socket.close() }

        let result = seen.value
        #expect(result.packets == expected)
        #expect(result.closes == 0)
        // 100 packets waiting: the first read alone (handed on at once), then reads of at most 32 (the
        // socket's slots).
        #expect(result.reads == [1, 32, 32, 32, 3])
    }

    @Test func theOtherEndsCloseEndsItOnceAfterThePacketsSentBeforeIt() async throws {
        let thread = try EventLoopThread(name: "socket-test")
        defer { thread.stop() }
        let (ours, theirs) = try Self.seqpacketPair()
        let expected = (0..<3).map(Self.packet)
        for packet in expected { try Self.send(packet, to: theirs) }
        close(theirs)

        let seen = LockedBox(Seen())
        let socket = await Self.read(ours, on: thread.loop, into: seen, until: 4)
        defer { socket.close() }
        // Whatever the loop would still report after the close is handed on first.
        await thread.loop.perform {}

        let result = seen.value
        #expect(result.packets == expected)
        #expect(result.closes == 1)
    }
}
