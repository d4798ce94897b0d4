import Foundation
import Ripple

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSession {
    /// A publisher that loads one URL request with a data task, as Combine's: the data and the response,
    /// then `.finished`, or a `URLError`.
    ///
    /// The task is made when the subscriber first requests, and resumed on each request; cancelling the
    /// subscription cancels the task. The result goes out on the session's delegate queue. An error that is
    /// not a `URLError`, or a completion without a response, fails with `URLError(.unknown)`. Its
    /// subscriptions describe themselves as `"DataTaskPublisher"`.
    ///
    /// `file:` URLs load as on Apple's systems, although FoundationNetworking on Linux refuses them
    /// (`unsupportedURL`): when the session refuses one, the publisher reads the file itself, off the
    /// calling thread, and answers with a `URLResponse` of the file's length and MIME type, or
    /// `fileDoesNotExist`, `fileIsDirectory`, `noPermissionsToReadFile` or `cannotOpenFile`.
    public struct DataTaskPublisher: Publisher {
        /// The data loaded and the response.
        public typealias Output = (data: Data, response: URLResponse)
        /// Loading fails with a `URLError`.
        public typealias Failure = URLError

        /// The request loaded.
        public let request: URLRequest
        /// The session that loads it.
        public let session: URLSession

        /// Creates a publisher that loads `request` with `session`.
        ///
        /// - Parameters:
        ///   - request: the request to load.
        ///   - session: the session that loads it.
        public init(request: URLRequest, session: URLSession) {
            self.request = request
            self.session = session
        }

        /// Attaches `subscriber`; the request is loaded when it first requests.
        ///
        /// - Parameter subscriber: the subscriber to attach.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == URLError {
            subscriber.receive(subscription: DataTaskSubscription(parent: self, downstream: subscriber))
        }
    }

    /// A publisher that loads `url` with a data task of this session.
    ///
    /// ```swift
    /// let readings = URLSession.shared.dataTaskPublisher(for: url)
    ///     .map(\.data)
    ///     .decode(type: [Reading].self, decoder: JSONDecoder())
    /// ```
    ///
    /// - Parameter url: the URL to load.
    /// - Returns: a ``DataTaskPublisher`` of the data and the response.
    public func dataTaskPublisher(for url: URL) -> DataTaskPublisher {
        dataTaskPublisher(for: URLRequest(url: url))
    }

    /// A publisher that loads `request` with a data task of this session.
    ///
    /// - Parameter request: the request to load.
    /// - Returns: a ``DataTaskPublisher`` of the data and the response.
    public func dataTaskPublisher(for request: URLRequest) -> DataTaskPublisher {
        DataTaskPublisher(request: request, session: self)
    }
}
