import Foundation
import Ripple
import RippleTestKit
import Testing

@testable import RippleFoundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A data task that records what it is asked to do and runs nothing.
private final class RecordingDataTask: URLSessionDataTask, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []

    var calls: [String] { lock.withLock { recorded } }

    override func resume() {
        lock.withLock { recorded.append("resume") }
    }

    override func cancel() {
        lock.withLock { recorded.append("cancel") }
    }
}

/// A session whose data tasks are ``RecordingDataTask``s, completed by the test.
private final class ScriptedSession: URLSession, @unchecked Sendable {
    let task = RecordingDataTask()
    private let lock = NSLock()
    private var handlers: [@Sendable (Data?, URLResponse?, (any Error)?) -> Void] = []
    private var requests: [URLRequest] = []

    var madeTasks: Int { lock.withLock { requests.count } }

    override func dataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> URLSessionDataTask {
        lock.withLock {
            requests.append(request)
            handlers.append(completionHandler)
        }
        return task
    }

    func complete(_ data: Data?, _ response: URLResponse?, _ error: (any Error)?) {
        for handler in lock.withLock({ handlers }) { handler(data, response, error) }
    }
}

/// The data task publisher against a scripted session: Combine's event history for each way a task ends.
@Suite("URLSession.DataTaskPublisher with a scripted session")
struct DataTaskSubscriptionTests {
    private let url = URL(string: "https://example.invalid/readings")!

    /// Subscribes a recorder of each output's size to `publisher`, requesting nothing by itself (Map passes
    /// the data task's own subscription through).
    private func record<P: Publisher>(_ publisher: P) -> TestSubscriber<String, URLError>
    where P.Output == (data: Data, response: URLResponse), P.Failure == URLError {
        let recorder = TestSubscriber<String, URLError>(initialDemand: nil)
        publisher.map { "\($0.data.count) bytes" }.subscribe(recorder)
        return recorder
    }

    /// Subscribes a recorder that requests `.max(1)`, completes the task, and returns what it saw as text.
    private func history(_ data: Data?, _ response: URLResponse?, _ error: (any Error)?) -> [String] {
        let session = ScriptedSession(configuration: .default)
        let recorder = record(session.dataTaskPublisher(for: url))
        recorder.request(.max(1))
        session.complete(data, response, error)
        switch recorder.completion {
        case .finished: return recorder.values + ["finished"]
        case .failure(let error): return recorder.values + ["failure \(error.code.rawValue)"]
        case nil: return recorder.values
        }
    }

    @Test func aResponseGivesTheDataThenFinished() {
        let response = URLResponse(url: url, mimeType: "text/plain", expectedContentLength: 2, textEncodingName: nil)
        #expect(history(Data("ok".utf8), response, nil) == ["2 bytes", "finished"])
        #expect(history(nil, response, nil) == ["0 bytes", "finished"], "no data is empty data")
    }

    @Test func errorsBecomeURLErrors() {
        let response = URLResponse(url: url, mimeType: nil, expectedContentLength: 0, textEncodingName: nil)
        #expect(history(nil, nil, URLError(.timedOut)) == ["failure \(URLError.Code.timedOut.rawValue)"])
        #expect(history(Data(), response, URLError(.cancelled)) == ["failure \(URLError.Code.cancelled.rawValue)"])
        let unknown = "failure \(URLError.Code.unknown.rawValue)"
        #expect(history(nil, nil, CocoaError(.fileReadUnknown)) == [unknown], "another error is unknown")
        #expect(history(Data("x".utf8), nil, nil) == [unknown], "no response is unknown")
        #expect(history(nil, nil, nil) == [unknown])
    }

    @Test func theTaskIsMadeOnceAndResumedOnEveryRequest() throws {
        let session = ScriptedSession(configuration: .default)
        let recorder = record(session.dataTaskPublisher(for: url))
        #expect(session.madeTasks == 0)
        let subscription = try #require(recorder.subscription)
        subscription.request(.max(2))
        subscription.request(.max(1))
        #expect(session.madeTasks == 1)
        #expect(session.task.calls == ["resume", "resume"])
        subscription.cancel()
        subscription.cancel()
        #expect(session.task.calls == ["resume", "resume", "cancel"])
        session.complete(Data(), nil, nil)
        #expect(recorder.events == [.subscription("DataTaskPublisher")], "nothing after cancel")
    }

    @Test func aResultBeforeAnyRequestIsNotDelivered() throws {
        let session = ScriptedSession(configuration: .default)
        let recorder = record(session.dataTaskPublisher(for: url))
        let mirror = Mirror(reflecting: try #require(recorder.subscription))
        #expect(mirror.children.map(\.label) == ["task", "downstream", "parent", "demand"])
        #expect(mirror.children.first { $0.label == "demand" }?.value as? Subscribers.Demand == Subscribers.Demand.none)
    }
}
