import CLibUV
import Dispatch
import Glibc
import Ripple
import RippleTestSupport
import Synchronization
import Testing

@testable import RippleLoop

@Suite("EventLoop: poll", .timeLimit(.minutes(5)))
struct EventLoopPollTests {
    @Test func aDemandOfNothingTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let owner = try EventLoopThread()
            let sockets = try Self.SocketPair()
            owner.loop.poll(sockets.first, for: .readable).subscribe(
                AnySubscriber(
                    receiveSubscription: { $0.request(.none) }, receiveValue: { _ in .none },
                    receiveCompletion: { _ in }))
            withExtendedLifetime((owner, sockets)) {}
        }
        #if DEBUG
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains("API Violation: demand must not be zero"), "\(output.prefix(600))")
        #else
        _ = result
        #endif
    }

    /// A connected pair of Unix stream sockets, closed on release.
    final class SocketPair: Sendable {
        let first: Int32
        let second: Int32

        init() throws {
            (first, second) = try closeOnExecSocketPair()
        }

        deinit {
            close(first)
            close(second)
        }

        func send(_ text: String, from descriptor: Int32) {
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        }

        func receive(on descriptor: Int32) -> String {
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : ""
        }
    }

    @Test func readableEventsAreDeliveredOnTheLoopThreadAndCancelStopsPolling() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let sockets = try SocketPair()
        let received = LockedBox<[String]>()
        let arrivals = LockedBox<CheckedContinuation<Void, Never>?>(nil)
        let reader = PollRecorder(loop: loop, initialDemand: .unlimited) { event in
            if event == .value(.readable) {
                received.append(sockets.receive(on: sockets.first))
                arrivals.withLock { $0.take() }?.resume()
            }
        }
        loop.poll(sockets.first, for: .readable).subscribe(reader)
        for message in ["one", "two"] {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                arrivals.value = continuation
                sockets.send(message, from: sockets.second)
            }
        }
        #expect(received.value == ["one", "two"])
        #expect(reader.events == [.value(.readable), .value(.readable)])
        #expect(reader.threads.value.allSatisfy { $0 })
        #expect(await loop.onLoop { loop.openPollerCount } == 1)

        reader.subscription?.cancel()
        await loop.flush()
        #expect(await loop.onLoop { loop.openPollerCount } == 0)
        sockets.send("three", from: sockets.second)
        await loop.wait(.milliseconds(20))
        #expect(reader.events.count == 2, "nothing after cancel")
        #expect(received.value == ["one", "two"])
    }

    /// libdbus removes its watch and closes the socket in one call: the watching must have stopped by then,
    /// or libuv aborts the process when it next updates the watch of the closed descriptor.
    @Test func cancelOnTheLoopThreadStopsWatchingBeforeItReturns() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let sockets = try SocketPair()
        let reader = PollRecorder(loop: loop, initialDemand: .unlimited)
        loop.poll(sockets.first, for: .readable).subscribe(reader)
        await loop.flush()
        #expect(await loop.onLoop { loop.openPollerCount } == 1)
        let afterCancel = await loop.onLoop { () -> Int in
            reader.subscriber.cancel()
            return loop.openPollerCount
        }
        #expect(afterCancel == 0)
        #expect(reader.events.isEmpty)
    }

    @Test func demandIsHonouredAndReadinessIsReportedAgainWhenDemandReturns() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let sockets = try SocketPair()
        let writer = PollRecorder(loop: loop, initialDemand: .max(1))
        loop.poll(sockets.first, for: .writable).subscribe(writer)
        await writer.waitForEvents(1)
        // Always writable, but no demand: the loop stops watching instead of reporting.
        await loop.wait(.milliseconds(10))
        await loop.flush()
        #expect(writer.events == [.value(.writable)])
        #expect(await loop.onLoop { loop.openPollerCount } == 1)

        writer.subscription?.request(.max(2))
        await writer.waitForEvents(3)
        await loop.wait(.milliseconds(10))
        #expect(writer.events == [.value(.writable), .value(.writable), .value(.writable)])
        writer.subscription?.cancel()
        writer.subscription?.request(.max(1))
        await loop.flush()
        #expect(await loop.onLoop { loop.openPollerCount } == 0)
    }

    @Test func demandReturnedFromReceiveKeepsValuesComing() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let sockets = try SocketPair()
        let writer = PollRecorder(loop: loop, initialDemand: .max(1), demandPerValue: .max(1))
        loop.poll(sockets.first, for: .writable).subscribe(writer)
        await writer.waitForEvents(5)
        writer.subscription?.cancel()
        #expect(writer.events.prefix(5).allSatisfy { $0 == .value(.writable) })
    }

    @Test func subscriptionsToOneDescriptorShareItsHandle() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let sockets = try SocketPair()
        let reader = PollRecorder(loop: loop, initialDemand: .max(1))
        let writer = PollRecorder(loop: loop, initialDemand: .max(1))
        loop.poll(sockets.first, for: .readable).subscribe(reader)
        loop.poll(sockets.first, for: .writable).subscribe(writer)
        await writer.waitForEvents(1)
        #expect(reader.events.count == 0, "not readable yet")
        #expect(await loop.onLoop { loop.openPollerCount } == 1)

        sockets.send("ping", from: sockets.second)
        await reader.waitForEvents(1)
        #expect(reader.events == [.value(.readable)])
        #expect(writer.events == [.value(.writable)])

        writer.subscription?.cancel()
        await loop.flush()
        #expect(await loop.onLoop { loop.openPollerCount } == 1)
        reader.subscription?.cancel()
        await loop.flush()
        #expect(await loop.onLoop { loop.openPollerCount } == 0)
    }

    @Test func aClosedPeerIsReportedAsDisconnect() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let (watched, peer) = try closeOnExecSocketPair()
        defer { close(watched) }
        let watcher = PollRecorder(loop: loop, initialDemand: .max(1))
        loop.poll(watched, for: [.readable, .disconnect]).subscribe(watcher)
        close(peer)
        await watcher.waitForEvents(1)
        guard case .value(let events) = watcher.events.first else {
            Issue.record("expected a value, got \(watcher.events)")
            return
        }
        #expect(events.contains(.disconnect))
        watcher.subscription?.cancel()
    }

    @Test func aDescriptorLibuvCannotWatchFails() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let file = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)
        try #require(file >= 0)
        defer { close(file) }
        let regular = PollRecorder(loop: loop, initialDemand: .unlimited)
        loop.poll(file, for: .readable).subscribe(regular)
        let negative = PollRecorder(loop: loop, initialDemand: .unlimited)
        loop.poll(-1, for: .readable).subscribe(negative)
        await regular.waitForEvents(1)
        await negative.waitForEvents(1)
        #expect(regular.events == [.failure(.libuv(code: UV_EPERM.rawValue))])
        #expect(negative.events == [.failure(.libuv(code: UV_EBADF.rawValue))])
        #expect(regular.threads.value == [true])
        #expect(await loop.onLoop { loop.openPollerCount } == 0)
    }

    @Test func aSubscriptionCancelledBeforeItIsRegisteredNeverPolls() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let sockets = try SocketPair()
        let writer = PollRecorder(loop: loop, initialDemand: .none)
        // Hold the loop thread so the registration cannot happen before the cancel.
        let hold = await loop.hold()
        loop.poll(sockets.first, for: .writable).subscribe(writer)
        #expect(writer.subscription.map { String(describing: $0) } == "Poll")
        writer.subscription?.cancel()
        writer.subscription?.request(.unlimited)
        hold.signal()
        await loop.flush()
        await loop.flush()
        #expect(writer.events.count == 0)
        #expect(await loop.onLoop { loop.openPollerCount } == 0)
    }

    @Test func stoppingTheLoopFinishesItsPollSubscribers() async throws {
        let owner = try EventLoopThread()
        let loop = owner.loop
        let sockets = try SocketPair()
        let reader = PollRecorder(loop: loop, initialDemand: .unlimited)
        loop.poll(sockets.first, for: .readable).subscribe(reader)
        await loop.flush()
        await loop.flush()
        owner.stop()
        #expect(reader.events == [.finished])
        #expect(reader.threads.value == [true])
        #expect(loop.closeState == (closed: true, status: 0))

        let late = PollRecorder(loop: loop, initialDemand: .unlimited)
        loop.poll(sockets.first, for: .readable).subscribe(late)
        #expect(late.events == [.finished])
        #expect(late.threads.value == [false], "finished at once, on the subscribing thread")
    }

    @Test func pollEventsDescribeThemselves() {
        #expect(EventLoop.PollEvents.readable.description == "[readable]")
        #expect(
            EventLoop.PollEvents([.writable, .disconnect, .prioritized]).description
                == "[writable, disconnect, prioritized]")
        #expect(EventLoop.PollEvents([]).description == "[]")
        let publisher = EventLoop.shared.poll(3, for: .readable)
        #expect(publisher.fileDescriptor == 3 && publisher.events == .readable && publisher.loop === EventLoop.shared)
    }
}
