import Foundation
import Ripple

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One subscriber's load of a request: the task starts on the first request, and the result (the data and
/// response, or a `URLError`) goes out once.
final class DataTaskSubscription<Downstream: Subscriber>: Subscription, DataTaskResultReceiver,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Downstream.Input == (data: Data, response: URLResponse), Downstream.Failure == URLError {
    private enum Phase {
        /// Made, nothing requested yet.
        case waitingForDemand
        /// Loading.
        case loading
        /// Delivered or cancelled.
        case finished
    }

    private let lock = Lock()
    private let request: URLRequest
    private nonisolated(unsafe) var session: URLSession?
    private nonisolated(unsafe) var downstream: Downstream?
    private nonisolated(unsafe) var phase = Phase.waitingForDemand
    private nonisolated(unsafe) var demand = Subscribers.Demand.none
    /// What to cancel while loading: the data task, or the file read.
    private nonisolated(unsafe) var loading: (any Cancellable)?

    init(request: URLRequest, session: URLSession, downstream: Downstream) {
        self.request = request
        self.session = session
        self.downstream = downstream
    }

    var description: String { "DataTaskPublisher" }

    /// The task, the subscriber, the request and the demand, as in Combine.
    var customMirror: Mirror {
        let (loading, downstream, demand) = lock.withLock { (self.loading, self.downstream, self.demand) }
        let task = (loading as? DataTaskCancellation)?.task
        return Mirror(
            self,
            children: [
                ("task", task as Any), ("downstream", downstream as Any), ("parent", request), ("demand", demand),
            ]
        )
    }

    var playgroundDescription: Any { description }

    /// Starts loading on the first request.
    func request(_ demand: Subscribers.Demand) {
        APIViolation.checkDemand(demand)
        let session = lock.withLock { () -> URLSession? in
            guard phase != .finished else { return nil }
            self.demand += demand
            guard phase == .waitingForDemand else { return nil }
            phase = .loading
            return self.session
        }
        guard let session else { return }
        let loading = start(with: session)
        let cancelled = lock.withLock { () -> Bool in
            guard phase == .loading else { return true }
            if self.loading == nil { self.loading = loading }
            return false
        }
        if cancelled { loading.cancel() }
    }

    /// Starts the data task, or the read of a `file:` URL.
    private func start(with session: URLSession) -> any Cancellable {
        // The completion handlers reach this subscription through a non-generic existential, so that they
        // capture no metatype of the subscriber.
        let receiver: any DataTaskResultReceiver = self
        if let url = request.url, url.isFileURL {
            return FileURLLoader.load(url) { result in receiver.finish(result) }
        }
        let task = session.dataTask(with: request) { data, response, error in
            receiver.finish(DataTaskCancellation.result(data: data, response: response, error: error))
        }
        task.resume()
        return DataTaskCancellation(task: task)
    }

    /// Delivers the result, once, if the subscription is still loading.
    func finish(_ result: Result<(data: Data, response: URLResponse), URLError>) {
        let downstream = lock.withLock { () -> Downstream? in
            guard phase == .loading, demand > 0 else { return nil }
            phase = .finished
            let downstream = self.downstream
            release()
            return downstream
        }
        guard let downstream else { return }
        switch result {
        case .success(let output):
            _ = downstream.receive(output)
            downstream.receive(completion: .finished)
        case .failure(let error):
            downstream.receive(completion: .failure(error))
        }
    }

    /// Cancels the load; nothing is delivered.
    func cancel() {
        let (loading, released) = lock.withLock { () -> ((any Cancellable)?, Downstream?) in
            guard phase != .finished else { return (nil, nil) }
            phase = .finished
            let taken = (self.loading, downstream)
            release()
            return taken
        }
        loading?.cancel()
        withExtendedLifetime(released) {}
    }

    /// Drops the session, subscriber and load. Lock held.
    private func release() {
        session = nil
        downstream = nil
        loading = nil
        demand = .none
    }
}

/// A running data task, as a cancellable; and how its completion becomes a result.
struct DataTaskCancellation: Cancellable {
    let task: URLSessionDataTask

    func cancel() {
        task.cancel()
    }

    /// The data and the response, or the `URLError` (any other error, or no response, is `unknown`).
    static func result(
        data: Data?,
        response: URLResponse?,
        error: (any Error)?
    ) -> Result<(data: Data, response: URLResponse), URLError> {
        if let error {
            if let urlError = error as? URLError { return .failure(urlError) }
            let nsError = error as NSError
            if nsError.domain == NSURLErrorDomain {
                return .failure(URLError(URLError.Code(rawValue: nsError.code) ?? .unknown, userInfo: nsError.userInfo))
            }
            return .failure(URLError(.unknown, userInfo: [NSUnderlyingErrorKey: error]))
        }
        guard let response else { return .failure(URLError(.badServerResponse)) }
        return .success((data ?? Data(), response))
    }
}

/// What a load's completion handler hands its result to.
protocol DataTaskResultReceiver: AnyObject, Sendable {
    /// Delivers the result of the load.
    func finish(_ result: Result<(data: Data, response: URLResponse), URLError>)
}
