/// What a listener does with notifications that arrive faster than its subscriber demands them: an
/// ``EventBufferPolicy``, as for every event stream of the central.
public typealias NotificationBufferPolicy = EventBufferPolicy

/// The bounded buffer between a characteristic's notifications and one listener's subscriber: an
/// ``EventBuffering`` (by default 4,096 notifications, then the stream fails).
public typealias NotificationBuffering = EventBuffering

/// A listener's counters, updated as notifications arrive (read them from any thread): an
/// ``EventStatistics``. While the stream is live, `received` = `delivered` + `dropped` + the notifications
/// waiting in its buffer.
public typealias NotificationStatistics = EventStatistics
