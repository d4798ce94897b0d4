import Foundation
import Ripple

extension NotificationCenter {
    /// A publisher of the notifications a center posts with one name (and, optionally, from one object),
    /// as Combine's.
    ///
    /// Each subscriber observes the center from the moment it subscribes until it cancels. A notification
    /// reaches it only if it has demand when the notification is posted (one posted without demand is
    /// missed); it arrives on the posting thread. It never fails or completes. Its subscriptions describe
    /// themselves as `"NotificationCenter Observer"`.
    public struct Publisher: Ripple.Publisher {
        /// The notifications.
        public typealias Output = Notification
        /// It never fails.
        public typealias Failure = Never

        /// The center observed.
        public let center: NotificationCenter
        /// The name of the notifications published.
        public let name: Notification.Name
        /// The object whose notifications are published; `nil` for any object's.
        public let object: AnyObject?

        /// Creates a publisher of the notifications `center` posts named `name`, from `object` if it is
        /// given.
        ///
        /// - Parameters:
        ///   - center: the center to observe.
        ///   - name: the name of the notifications.
        ///   - object: the sender to observe; `nil` for any.
        public init(center: NotificationCenter, name: Notification.Name, object: AnyObject? = nil) {
            self.center = center
            self.name = name
            self.object = object
        }

        /// Attaches `subscriber`: it observes the center until it cancels.
        ///
        /// - Parameter subscriber: the subscriber to attach.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Notification, S.Failure == Never {
            let subscription = NotificationSubscription(
                center: center, name: name, object: object, downstream: subscriber)
            subscriber.receive(subscription: subscription)
        }
    }

    /// A publisher of the notifications this center posts named `name`, from `object` if it is given.
    ///
    /// ```swift
    /// let saved = NotificationCenter.default.publisher(for: .documentSaved)
    ///     .sink { notification in print("saved", notification.object ?? "") }
    /// ```
    ///
    /// - Parameters:
    ///   - name: the name of the notifications.
    ///   - object: the sender to observe; `nil` for any.
    /// - Returns: a ``Publisher`` of the notifications.
    public func publisher(for name: Notification.Name, object: AnyObject? = nil) -> Publisher {
        Publisher(center: self, name: name, object: object)
    }
}

extension NotificationCenter.Publisher: Equatable {
    /// Whether two publishers observe the same center, name and object (centers and objects compared by
    /// identity).
    ///
    /// - Parameters:
    ///   - lhs: a publisher.
    ///   - rhs: another publisher.
    /// - Returns: `true` when they publish the same notifications.
    public static func == (lhs: NotificationCenter.Publisher, rhs: NotificationCenter.Publisher) -> Bool {
        lhs.center === rhs.center && lhs.name == rhs.name && lhs.object === rhs.object
    }
}
