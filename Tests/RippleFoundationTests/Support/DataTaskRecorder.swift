import Foundation
import Ripple
import RippleFoundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Records a data task publisher's events as text, requesting nothing by itself.
final class DataTaskRecorder: Subscriber, @unchecked Sendable {
    typealias Input = (data: Data, response: URLResponse)
    typealias Failure = URLError
    private let lock = NSLock()
    private var received: [String] = []
    private var storedSubscription: (any Subscription)?

    var events: [String] { lock.withLock { received } }
    var subscription: (any Subscription)? { lock.withLock { storedSubscription } }

    func receive(subscription: any Subscription) {
        lock.withLock { storedSubscription = subscription }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        lock.withLock { received.append("\(input.data.count) bytes") }
        return .none
    }

    func receive(completion: Subscribers.Completion<URLError>) {
        lock.withLock {
            switch completion {
            case .finished: received.append("finished")
            case .failure(let error): received.append("failure \(error.code.rawValue)")
            }
        }
    }
}
