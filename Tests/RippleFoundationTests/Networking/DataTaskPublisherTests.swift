import Foundation
import Ripple
import RippleFoundation
import RippleTestKit
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `URLSession.dataTaskPublisher(for:)` over `file:` URLs (no network).
@Suite("URLSession.dataTaskPublisher")
struct DataTaskPublisherTests {
    @Test func aDemandOfNothingTrapsAsInCombine() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            URLSession.shared.dataTaskPublisher(for: URL(fileURLWithPath: "/")).subscribe(
                AnySubscriber(
                    receiveSubscription: { $0.request(.none) }, receiveValue: { _ in .none },
                    receiveCompletion: { _ in }))
        }
        #if DEBUG
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains("API Violation: demand must not be zero"), "\(output.prefix(600))")
        #else
        _ = result
        #endif
    }

    /// The folder of the files these tests load (beside this file, so that no run leaves any behind).
    private static let files = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Files", isDirectory: true)

    /// The file called `name` in ``files``.
    private func file(named name: String) -> URL {
        Self.files.appendingPathComponent(name)
    }

    /// Loads `publisher` to its end.
    private func load(
        _ publisher: URLSession.DataTaskPublisher
    ) async -> (outputs: [(data: Data, response: URLResponse)], completion: Subscribers.Completion<URLError>?) {
        let outputs = Collected<(data: Data, response: URLResponse)>()
        let completions = Collected<Subscribers.Completion<URLError>>()
        let cancellable = publisher.sink(
            receiveCompletion: { completions.append($0) }, receiveValue: { outputs.append($0) })
        _ = await completions.wait(for: 1)
        cancellable.cancel()
        return (outputs.values, completions.values.first)
    }

    @Test func loadsAFileURL() async throws {
        let url = file(named: "reading.json")
        let (outputs, completion) = await load(URLSession.shared.dataTaskPublisher(for: url))
        #expect(outputs.count == 1)
        #expect(String(decoding: outputs.first?.data ?? Data(), as: UTF8.self) == #"{"celsius":21.5}"#)
        #expect(outputs.first?.response.url == url)
        #expect(outputs.first?.response.mimeType == "application/json")
        #expect(outputs.first?.response.expectedContentLength == 16)
        #expect(completion == .finished)
    }

    @Test func decodesAFileURLsContents() async throws {
        struct Reading: Decodable, Equatable { let celsius: Double }
        let url = file(named: "reading.json")
        let readings = Collected<Reading>()
        let cancellable = URLSession.shared.dataTaskPublisher(for: URLRequest(url: url))
            .map(\.data)
            .decode(type: Reading.self, decoder: JSONDecoder())
            .sink(receiveCompletion: { _ in }, receiveValue: { readings.append($0) })
        #expect(await readings.wait(for: 1))
        #expect(readings.values == [Reading(celsius: 21.5)])
        cancellable.cancel()
    }

    @Test func aMissingFileFailsWithFileDoesNotExist() async throws {
        let url = file(named: "absent.txt")
        let (outputs, completion) = await load(URLSession.shared.dataTaskPublisher(for: url))
        #expect(outputs.isEmpty)
        #expect(completion?.errorCode == .fileDoesNotExist)
    }

    @Test func aDirectoryFailsWithFileIsDirectory() async throws {
        let (_, completion) = await load(URLSession.shared.dataTaskPublisher(for: Self.files))
        #expect(completion?.errorCode == .fileIsDirectory)
    }

    @Test func anUnsupportedSchemeFailsThroughTheSession() async throws {
        let url = try #require(URL(string: "ripple-test://nowhere/data"))
        let (outputs, completion) = await load(URLSession.shared.dataTaskPublisher(for: url))
        #expect(outputs.isEmpty)
        #expect(completion?.errorCode == .unsupportedURL)
    }

    @Test func nothingLoadsBeforeTheFirstRequestOrAfterCancel() async throws {
        let url = file(named: "a.txt")
        let publisher = URLSession.shared.dataTaskPublisher(for: url)
        #expect(publisher.request.url == url)
        #expect(publisher.session === URLSession.shared)
        // Map passes the data task's own subscription through.
        let sizes = publisher.map { "\($0.data.count) bytes" }
        let recorder = TestSubscriber<String, URLError>(initialDemand: nil)
        sizes.subscribe(recorder)
        let subscription = try #require(recorder.subscription)
        #expect(String(describing: subscription) == "DataTaskPublisher")
        #expect(Mirror(reflecting: subscription).children.map(\.label) == ["task", "downstream", "parent", "demand"])
        // The data task is made at the first request: without one, nothing can load.
        #expect(isNil(Mirror(reflecting: subscription).descendant("task")))
        #expect(recorder.events == [.subscription("DataTaskPublisher")], "nothing is loaded before a request")
        recorder.request(.max(1))
        try await recorder.waitForCompletion()
        #expect(recorder.events == [.subscription("DataTaskPublisher"), .value("3 bytes"), .finished])

        let cancelled = TestSubscriber<String, URLError>(initialDemand: nil)
        sizes.subscribe(cancelled)
        let cancelledSubscription = cancelled.subscription
        cancelled.cancel()
        cancelledSubscription?.request(.max(1))
        // Cancelled, the subscription made no task and let its subscriber go: nothing can reach it later.
        let remains = try #require(cancelledSubscription.map { Mirror(reflecting: $0) })
        #expect(isNil(remains.descendant("task")))
        #expect(isNil(remains.descendant("downstream")))
        #expect(cancelled.events == [.subscription("DataTaskPublisher")], "a cancelled subscription loads nothing")
    }
}

/// Whether a mirror's child holds an optional that is nil (false for a missing child or any other value).
private func isNil(_ child: Any?) -> Bool {
    guard let child else { return false }
    let mirror = Mirror(reflecting: child)
    return mirror.displayStyle == .optional && mirror.children.isEmpty
}

extension Subscribers.Completion<URLError> {
    /// The error's code, for a failure.
    var errorCode: URLError.Code? {
        if case .failure(let error) = self { error.code } else { nil }
    }
}
