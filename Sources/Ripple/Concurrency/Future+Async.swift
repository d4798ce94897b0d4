extension Future where Output: Sendable {
    /// Creates a future whose work is an `async` function: `operation` starts at once in a new `Task`,
    /// runs once however many subscribers there are, and runs to its end even if every subscriber
    /// cancels.
    ///
    /// Every subscriber receives the operation's value (once it has requested one) followed by
    /// `.finished`, or `.failure(error)` if the operation throws, as for a promise-based ``Future``.
    ///
    /// ```swift
    /// let profile = Future { try await api.fetchProfile() }   // Failure is `any Error`
    /// let reading = Future<Int, Never> { await sensor.next() }
    /// ```
    ///
    /// - Parameter operation: The work whose result the future publishes.
    public convenience init(_ operation: @escaping @Sendable () async throws(Failure) -> Output) {
        self.init { promise in
            let fulfil = FuturePromise(promise)
            Task {
                let result: Result<Output, Failure>
                do throws(Failure) {
                    result = .success(try await operation())
                } catch {
                    result = .failure(error)
                }
                fulfil.promise(result)
            }
        }
    }
}

/// A ``Future``'s promise handed to the task that fulfils it.
///
/// The promise is not declared `@Sendable` (it is Combine's `(Result) -> Void`), but a `Future`'s
/// promise may be called from any thread: it records the result under the future's lock and only the
/// first call counts.
private struct FuturePromise<Output, Failure: Error>: Sendable {
    nonisolated(unsafe) let promise: (Result<Output, Failure>) -> Void

    init(_ promise: @escaping (Result<Output, Failure>) -> Void) {
        self.promise = promise
    }
}
