/// The namespace of Ripple's subscriber types (``Subscribers/Sink``, ``Subscribers/Assign``) and of
/// ``Subscribers/Demand`` and ``Subscribers/Completion``.
public enum Subscribers {}

/// The namespace of the publishers that Ripple's operators return (``Publishers/Map``, …).
public enum Publishers {}

/// The namespace of ready-made subscriptions.
public enum Subscriptions {}
