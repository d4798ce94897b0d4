import Foundation
import Ripple
import RippleFoundation
import RippleTestKit
import Testing

private let readingArrived = Notification.Name("RippleFoundationTests.readingArrived")
private let otherName = Notification.Name("RippleFoundationTests.other")

/// `NotificationCenter.publisher(for:object:)`. Notifications are posted synchronously on the posting thread,
/// so these tests need no waiting; a private center keeps them apart from each other.
@Suite("NotificationCenter.publisher")
struct NotificationCenterPublisherTests {
    private final class Sender {}

    @Test func deliversTheNotificationsOfItsNameAsDemanded() {
        let center = NotificationCenter()
        let recorder = TestSubscriber<Notification, Never>(initialDemand: .max(2))
        center.publisher(for: readingArrived).subscribe(recorder)
        center.post(name: otherName, object: nil)
        center.post(name: readingArrived, object: nil, userInfo: ["celsius": 21])
        center.post(name: readingArrived, object: nil, userInfo: ["celsius": 22])
        center.post(name: readingArrived, object: nil, userInfo: ["celsius": 23])
        #expect(recorder.values.map { $0.userInfo?["celsius"] as? Int } == [21, 22])
        #expect(recorder.values.allSatisfy { $0.name == readingArrived })
        recorder.cancel()
    }

    @Test func filtersByObject() {
        let center = NotificationCenter()
        let sender = Sender()
        let values = Collected<Notification>()
        let cancellable = center.publisher(for: readingArrived, object: sender).sink { values.append($0) }
        center.post(name: readingArrived, object: Sender())
        center.post(name: readingArrived, object: sender)
        center.post(name: readingArrived, object: nil)
        #expect(values.values.count == 1)
        #expect(values.values.first?.object as AnyObject? === sender)
        cancellable.cancel()
    }

    @Test func cancellingRemovesTheObserver() {
        let center = NotificationCenter()
        let values = Collected<Notification>()
        let cancellable = center.publisher(for: readingArrived).sink { values.append($0) }
        center.post(name: readingArrived, object: nil)
        cancellable.cancel()
        center.post(name: readingArrived, object: nil)
        #expect(values.values.count == 1)
    }

    @Test func theDefaultCenterAndFoundationPipelines() {
        let values = Collected<Int>()
        let name = Notification.Name("RippleFoundationTests.default.\(UUID())")
        let cancellable = NotificationCenter.default.publisher(for: name)
            .compactMap { $0.userInfo?["count"] as? Int }
            .filter { $0.isMultiple(of: 2) }
            .sink { values.append($0) }
        for count in 1...6 {
            NotificationCenter.default.post(name: name, object: nil, userInfo: ["count": count])
        }
        #expect(values.values == [2, 4, 6])
        cancellable.cancel()
    }

    @Test func concurrentPostsAreDeliveredOneAtATime() async {
        let center = NotificationCenter()
        let inside = Collected<Int>()
        let overlaps = Collected<Int>()
        let active = ActiveCount()
        let cancellable = center.publisher(for: readingArrived).sink { _ in
            if active.enter() > 1 { overlaps.append(1) }
            inside.append(1)
            active.leave()
        }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<250 { center.post(name: readingArrived, object: nil) }
                }
            }
        }
        #expect(inside.values.count == 1_000)
        #expect(overlaps.values.isEmpty)
        cancellable.cancel()
    }

    @Test func equalityDescriptionAndMirror() throws {
        let center = NotificationCenter()
        let sender = Sender()
        #expect(
            center.publisher(for: readingArrived, object: sender)
                == center.publisher(for: readingArrived, object: sender))
        #expect(center.publisher(for: readingArrived) != center.publisher(for: otherName))
        #expect(center.publisher(for: readingArrived) != NotificationCenter().publisher(for: readingArrived))
        #expect(center.publisher(for: readingArrived, object: sender) != center.publisher(for: readingArrived))

        let recorder = TestSubscriber<Notification, Never>(initialDemand: .max(3))
        center.publisher(for: readingArrived).subscribe(recorder)
        let subscription = try #require(recorder.subscription)
        #expect(String(describing: subscription) == "NotificationCenter Observer")
        let mirror = Mirror(reflecting: subscription)
        #expect(mirror.children.map(\.label) == ["center", "name", "object", "demand"])
        #expect(mirror.children.first { $0.label == "demand" }?.value as? Subscribers.Demand == .max(3))
        recorder.cancel()
    }
}

/// Counts the callbacks running at once.
private final class ActiveCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func enter() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }

    func leave() {
        lock.withLock { count -= 1 }
    }
}
