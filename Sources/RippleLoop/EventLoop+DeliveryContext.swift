import Ripple

extension DeliveryContext {
    /// Delivers on `loop`'s thread: at once when called there, else by scheduling onto the loop (work
    /// scheduled after the loop stopped is dropped, and with it the delivery).
    ///
    /// - Parameter loop: the loop whose thread delivers.
    /// - Returns: the context.
    package static func loop(_ loop: EventLoop) -> DeliveryContext {
        DeliveryContext(isCurrent: { loop.isInLoopThread }, enqueue: { work in loop.schedule(work) })
    }
}
