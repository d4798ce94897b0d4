@testable import Ripple

/// Subscribes a fresh unlimited ``TestSubscriber`` to `publisher` and returns what it saw.
func events<P: Publisher>(of publisher: P) -> [Event<P.Output, P.Failure>]
where P.Output: Equatable, P.Failure: Equatable {
    let subscriber = TestSubscriber<P.Output, P.Failure>()
    publisher.subscribe(subscriber)
    return subscriber.events
}

/// Runs `publisher` through a sink and returns its values and whether (and with which `TestError`) it failed.
func outcome<P: Publisher>(of publisher: P) -> (values: [P.Output], finished: Bool, error: TestError?)
where P.Failure == any Error {
    var values: [P.Output] = []
    var finished = false
    var error: TestError?
    let cancellable = publisher.sink(
        receiveCompletion: { completion in
            switch completion {
            case .finished: finished = true
            case .failure(let failure): error = failure as? TestError
            }
        },
        receiveValue: { values.append($0) }
    )
    cancellable.cancel()
    return (values, finished, error)
}
