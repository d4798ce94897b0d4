/// What the per-value logic of a `Transforming` operator (a ``TransformingStep`` or a
/// ``TransformingReduction``) says about failures: how an upstream failure reaches the downstream and which
/// error, if any, the logic itself ended the stream with.
///
/// The extensions below give the two shapes every operator here has (the failure passes through unchanged,
/// or, for the `try` forms, it is forwarded as `any Error` beside the error the closure threw), so that a
/// conforming type declares only its per-value logic. All of it runs on the failure path, never per value.
@usableFromInline
internal protocol TransformingLogic {
    /// The upstream's failure.
    associatedtype UpstreamFailure: Error
    /// The downstream's failure (`any Error` for the `try` operators).
    associatedtype Failure: Error

    /// The error to fail with after the logic reported `.fail`.
    mutating func takeFailure() -> Failure?

    /// The downstream failure for an upstream failure.
    func failure(from error: UpstreamFailure) -> Failure
}

extension TransformingLogic {
    /// No failure of its own: for logic that never reports `.fail`.
    @inlinable
    func takeFailure() -> Failure? { nil }
}

extension TransformingLogic where Failure == UpstreamFailure {
    /// The upstream failure passes through unchanged.
    @inlinable
    func failure(from error: UpstreamFailure) -> Failure { error }
}

extension TransformingLogic where Failure == any Error {
    /// The upstream failure is forwarded as `any Error`.
    @inlinable
    func failure(from error: UpstreamFailure) -> any Error { error }
}

/// The logic of a `try` operator: it keeps the error its closure threw in ``thrown`` and fails with it.
@usableFromInline
internal protocol TransformingThrowingLogic: TransformingLogic where Failure == any Error {
    /// The error the closure threw, kept for the subscription to fail with.
    var thrown: (any Error)? { get }
}

extension TransformingThrowingLogic {
    /// The error the closure threw, if it threw.
    @inlinable
    func takeFailure() -> (any Error)? { thrown }
}
