import CLibUV
import Ripple
import RippleDBus
import RippleLoop
import RippleTestKit
import RippleTestSupport
import Testing

@testable import RippleBlueZ

/// ``CentralWork``: one piece of work at a time on the loop thread, and the value route the connection's
/// fast path hands notifications to.
@Suite(.timeLimit(Patience.test)) struct CentralWorkTests {
    let loop = EventLoop.shared
    static let path = (try? DBusObjectPath("/org/bluez/hci0/dev_C0_FF_EE_00_00_01/service0001/char0002")) ?? .root
    static let otherPath = (try? DBusObjectPath("/org/bluez/hci0/dev_C0_FF_EE_00_00_01/service0001/char0004")) ?? .root

    @Test func workStartedDuringOtherWorkRunsAfterItInTheOrderItCame() async {
        let work = CentralWork(loop: loop)
        let log = LockedBox<[String]>()
        await loop.perform {
            work.run {
                log.append("first begins")
                work.run { log.append("second") }
                work.run { log.append("third") }
                #expect(work.isBusy)
                log.append("first ends")
            }
            #expect(!work.isBusy)
            work.begin()
            work.run { log.append("fourth") }
            log.append("begun work ends")
            work.finish()
            #expect(!work.isBusy)
        }
        #expect(log.value == ["first begins", "first ends", "second", "third", "begun work ends", "fourth"])
    }

    @Test func aValueOfTheRoutedPathGoesToTheRoutesListenersAndNoOtherDoes() async throws {
        let work = CentralWork(loop: loop)
        let subscriber = TestSubscriber<[UInt8], BluetoothError>()
        let listener = listener(for: subscriber)
        defer { subscriber.cancel() }
        await loop.perform {
            // No route yet, no central: nothing is delivered.
            work.valueChanged(Self.path, [1])
            work.route = ValueRoute(path: Self.path, listeners: [listener])
            work.valueChanged(Self.path, [2])
            work.valueChanged(Self.otherPath, [3])
            // While work runs, the value goes the central's way (here: none), not past the work.
            work.run { work.valueChanged(Self.path, [4]) }
            work.valueChanged(Self.path, [5])
            work.route = nil
            work.valueChanged(Self.path, [6])
        }
        #expect(subscriber.values == [[2], [5]])
    }

    @Test func theRoutesOfSeveralCharacteristicsAreKeptUntilASessionChanges() async throws {
        let work = CentralWork(loop: loop)
        let first = TestSubscriber<[UInt8], BluetoothError>()
        let second = TestSubscriber<[UInt8], BluetoothError>()
        let listeners = [first, second].map(listener(for:))
        defer { [first, second].forEach { $0.cancel() } }
        await loop.perform {
            work.route = ValueRoute(path: Self.path, listeners: [listeners[0]])
            work.route = ValueRoute(path: Self.otherPath, listeners: [listeners[1]])
            // The last route and the one before both take their characteristic's values, in any order.
            work.valueChanged(Self.path, [1])
            work.valueChanged(Self.otherPath, [2])
            work.valueChanged(Self.path, [3])
            // A session changed: every route goes.
            work.route = nil
            work.valueChanged(Self.path, [4])
            work.valueChanged(Self.otherPath, [5])
        }
        #expect(first.values == [[1], [3]])
        #expect(second.values == [[2]])
    }

    @Test func theSocketRoutesOfSeveralCharacteristicsAreKeptUntilASessionChanges() async throws {
        let work = CentralWork(loop: loop)
        let first = TestSubscriber<[UInt8], BluetoothError>()
        let second = TestSubscriber<[UInt8], BluetoothError>()
        let listeners = [first, second].map(listener(for:))
        defer { [first, second].forEach { $0.cancel() } }
        await loop.perform {
            work.socketRoute = ValueRoute(path: Self.path, listeners: [listeners[0]])
            work.socketRoute = ValueRoute(path: Self.otherPath, listeners: [listeners[1]])
            // The last route and the one before both take their socket's packets, in any order.
            Self.withPacket(1) { work.packetsArrived($0, of: Self.path) }
            Self.withPacket(2) { work.packetsArrived($0, of: Self.otherPath) }
            Self.withPacket(3) { work.packetsArrived($0, of: Self.path) }
            // A session changed: every route goes.
            work.socketRoute = nil
            Self.withPacket(4) { work.packetsArrived($0, of: Self.path) }
            Self.withPacket(5) { work.packetsArrived($0, of: Self.otherPath) }
        }
        #expect(first.values == [[1], [3]])
        #expect(second.values == [[2]])
    }

    /// A listener on the loop that hands what it is offered to `subscriber`.
    private func listener(for subscriber: TestSubscriber<[UInt8], BluetoothError>) -> NotificationListener {
        let listener = NotificationListener(
            listening: subscriber, buffering: .default, statistics: NotificationStatistics(), context: .loop(loop),
            onEnd: {})
        subscriber.receive(subscription: listener)
        return listener
    }

    /// Runs `body` with one received packet of one byte, `byte`.
    private static func withPacket(_ byte: UInt8, _ body: (ReceivedPackets) -> Void) {
        var slot = byte
        var header = ripple_packet_header()
        header.length = 1
        withUnsafeMutableBytes(of: &slot) { slot in
            guard let start = slot.baseAddress else { return }
            withUnsafePointer(to: &header) { header in
                body(ReceivedPackets(slots: start, slotSize: 1, headers: header, count: 1))
            }
        }
    }
}
