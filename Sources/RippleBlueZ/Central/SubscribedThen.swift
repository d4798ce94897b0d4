import Ripple

/// A publisher that subscribes its subscriber to `upstream`, then runs `then`: for a source that must
/// know its subscriber is in place (registered, buffering) before anything is sent to it.
struct SubscribedThen<Upstream: Publisher>: Publisher {
    typealias Output = Upstream.Output
    typealias Failure = Upstream.Failure

    let upstream: Upstream
    let then: () -> Void

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        upstream.receive(subscriber: subscriber)
        then()
    }
}
