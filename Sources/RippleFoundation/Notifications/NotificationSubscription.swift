import Foundation
import Ripple

/// One subscriber's observation of a notification center.
///
/// The observer is added when the subscription is made and removed when it is cancelled. Notifications
/// posted while the subscriber has no demand are missed. Notifications posted while one is being delivered
/// (on another thread, or re-entrantly by the subscriber) are delivered after it, in order, by the thread
/// already delivering, so that deliveries never overlap or nest.
final class NotificationSubscription<Downstream: Subscriber>: Subscription, NotificationReceiver,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Downstream.Input == Notification, Downstream.Failure == Never {
    private let lock = Lock()
    private let name: Notification.Name
    /// The center, until cancelled.
    private nonisolated(unsafe) var center: NotificationCenter?
    /// The observed object, until cancelled.
    private nonisolated(unsafe) var object: AnyObject?
    /// The token `addObserver` returned, until cancelled.
    private nonisolated(unsafe) var observation: (any NSObjectProtocol)?
    /// The subscriber, until cancelled.
    private nonisolated(unsafe) var downstream: Downstream?
    private nonisolated(unsafe) var demand = Subscribers.Demand.none
    private nonisolated(unsafe) var deliveries = SerialSignalQueue<Notification>()

    init(center: NotificationCenter, name: Notification.Name, object: AnyObject?, downstream: Downstream) {
        self.center = center
        self.name = name
        self.object = object
        self.downstream = downstream
        // The observer reaches this subscription through a non-generic existential, so that it captures no
        // metatype of the subscriber.
        weak let receiver: (any NotificationReceiver)? = self
        let token = center.addObserver(forName: name, object: object, queue: nil) { notification in
            receiver?.post(notification)
        }
        lock.withLock { observation = token }
    }

    var description: String { "NotificationCenter Observer" }

    /// The center, name, object and demand, as in Combine.
    var customMirror: Mirror {
        let (center, object, demand) = lock.withLock { (self.center, self.object, self.demand) }
        return Mirror(
            self,
            children: [("center", center as Any), ("name", name), ("object", object as Any), ("demand", demand)]
        )
    }

    var playgroundDescription: Any { description }

    /// Delivers `notification` if the subscriber has demand.
    func post(_ notification: Notification) {
        let first = lock.withLock { () -> (Notification, Downstream)? in
            guard demand > 0, let downstream else { return nil }
            demand -= 1
            return deliveries.offer(notification).map { ($0, downstream) }
        }
        guard let (firstNotification, downstream) = first else { return }
        var notification = firstNotification
        while true {
            let more = downstream.receive(notification)
            let next = lock.withLock { () -> Notification? in
                if self.downstream != nil { demand += more }
                return deliveries.next()
            }
            guard let next else { return }
            notification = next
        }
    }

    func request(_ demand: Subscribers.Demand) {
        lock.withLock {
            if downstream != nil { self.demand += demand }
        }
    }

    /// Removes the observer and releases the subscriber.
    func cancel() {
        let (center, observation, released) = lock.withLock {
            () -> (NotificationCenter?, (any NSObjectProtocol)?, Downstream?) in
            let taken = (self.center, self.observation, downstream)
            self.center = nil
            self.observation = nil
            object = nil
            downstream = nil
            demand = .none
            deliveries.discardPending()
            return taken
        }
        if let center, let observation { center.removeObserver(observation) }
        withExtendedLifetime(released) {}
    }
}

/// What a notification observer hands the notifications to.
protocol NotificationReceiver: AnyObject, Sendable {
    /// Delivers `notification` if the subscriber has demand.
    func post(_ notification: Notification)
}
