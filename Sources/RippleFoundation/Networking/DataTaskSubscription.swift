import Foundation
import Ripple

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One subscriber's load of a request, as Combine's: the session's data task is made on the first request
/// and resumed on every request; the result (the data and response, or a `URLError`) goes out once, if
/// anything was requested; a cancel cancels the task.
///
/// A `file:` URL that the session refuses as `unsupportedURL` (FoundationNetworking on Linux does) is read
/// by ``FileURLLoader`` instead, as Apple's URLSession would read it.
final class DataTaskSubscription<Downstream: Subscriber>: Subscription, DataTaskResultReceiver,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Downstream.Input == (data: Data, response: URLResponse), Downstream.Failure == URLError {
    private let lock = Lock()
    /// The publisher, until the subscription ends.
    private nonisolated(unsafe) var parent: URLSession.DataTaskPublisher?
    /// The subscriber, until the subscription ends.
    private nonisolated(unsafe) var downstream: Downstream?
    private nonisolated(unsafe) var demand = Subscribers.Demand.none
    /// The data task, once made, until the subscription ends.
    private nonisolated(unsafe) var task: URLSessionDataTask?
    /// The read of a `file:` URL the session refused, while it runs.
    private nonisolated(unsafe) var fileRead: (any Cancellable)?

    init(parent: URLSession.DataTaskPublisher, downstream: Downstream) {
        self.parent = parent
        self.downstream = downstream
    }

    var description: String { "DataTaskPublisher" }

    /// The task, the subscriber, the publisher and the demand, as in Combine.
    var customMirror: Mirror {
        let state = lock.withLock {
            () -> (URLSessionDataTask?, Downstream?, URLSession.DataTaskPublisher?, Subscribers.Demand) in
            (task, downstream, parent, demand)
        }
        return Mirror(
            self,
            children: [
                ("task", state.0 as Any), ("downstream", state.1 as Any), ("parent", state.2 as Any),
                ("demand", state.3),
            ]
        )
    }

    var playgroundDescription: Any { description }

    /// Makes the data task on the first request, and resumes it on every request, as Combine does.
    func request(_ demand: Subscribers.Demand) {
        APIViolation.checkDemand(demand)
        let live = lock.withLock { () -> (URLSession.DataTaskPublisher, URLSessionDataTask?)? in
            guard let parent = self.parent else { return nil }
            self.demand += demand
            return (parent, self.task)
        }
        guard let (parent, existing) = live else { return }
        let task = existing ?? makeTask(for: parent)
        task?.resume()
    }

    /// Makes the data task (outside the lock: the session may be a subclass running any code), unless
    /// another request made it first or the subscription ended meanwhile.
    private func makeTask(for parent: URLSession.DataTaskPublisher) -> URLSessionDataTask? {
        // The completion handler reaches this subscription through a non-generic existential, so that it
        // captures no metatype of the subscriber.
        let receiver: any DataTaskResultReceiver = self
        let made = parent.session.dataTask(with: parent.request) { data, response, error in
            receiver.taskCompleted(data: data, response: response, error: error)
        }
        return lock.withLock { () -> URLSessionDataTask? in
            guard self.parent != nil else { return nil }
            if let task { return task }
            task = made
            return made
        }
    }

    func taskCompleted(data: Data?, response: URLResponse?, error: (any Error)?) {
        let result = DataTaskResult.make(data: data, response: response, error: error)
        if case .failure(let failure) = result, failure.code == .unsupportedURL,
            let url = lock.withLock({ parent?.request.url }), url.isFileURL
        {
            readFile(url)
            return
        }
        finish(result)
    }

    /// Reads the `file:` URL the session refused.
    private func readFile(_ url: URL) {
        let receiver: any DataTaskResultReceiver = self
        let read = FileURLLoader.load(url) { result in receiver.finish(result) }
        let cancelled = lock.withLock { () -> Bool in
            guard parent != nil else { return true }
            fileRead = read
            return false
        }
        if cancelled { read.cancel() }
    }

    /// Delivers the result, once, if anything was requested and the subscription has not ended.
    func finish(_ result: Result<(data: Data, response: URLResponse), URLError>) {
        let downstream = lock.withLock { () -> Downstream? in
            guard demand > 0, parent != nil else { return nil }
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

    /// Cancels the task (or the file read); nothing is delivered.
    func cancel() {
        let (task, fileRead, released) = lock.withLock {
            () -> (URLSessionDataTask?, (any Cancellable)?, Downstream?) in
            guard parent != nil else { return (nil, nil, nil) }
            let taken = (self.task, self.fileRead, downstream)
            release()
            return taken
        }
        task?.cancel()
        fileRead?.cancel()
        withExtendedLifetime(released) {}
    }

    /// Ends the subscription: drops the publisher, subscriber, task and demand. Lock held.
    private func release() {
        parent = nil
        downstream = nil
        task = nil
        fileRead = nil
        demand = .none
    }
}

/// What a load's completion handlers hand their result to.
protocol DataTaskResultReceiver: AnyObject, Sendable {
    /// The data task completed with `data`, `response` and `error`.
    func taskCompleted(data: Data?, response: URLResponse?, error: (any Error)?)

    /// Delivers the result of the load.
    func finish(_ result: Result<(data: Data, response: URLResponse), URLError>)
}

/// How a data task's completion becomes the publisher's result, as in Combine.
enum DataTaskResult {
    /// The data (empty if none) and the response when there is a response and no error; the `URLError`
    /// when the error is one; `URLError(.unknown)` otherwise (another error, or no response).
    static func make(
        data: Data?,
        response: URLResponse?,
        error: (any Error)?
    ) -> Result<(data: Data, response: URLResponse), URLError> {
        switch (response, error) {
        case (let response?, nil): .success((data ?? Data(), response))
        case (_, let error as URLError): .failure(error)
        default: .failure(URLError(.unknown))
        }
    }
}
