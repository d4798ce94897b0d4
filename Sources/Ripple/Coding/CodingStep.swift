/// The per-value logic of ``Publishers/Encode`` and ``Publishers/Decode``: apply the coder, fail on its
/// error. `Direction` names the subscription.
@usableFromInline
internal struct CodingStep<Direction: CodingDirection, Input, Output, UpstreamError: Error>: TransformingStep,
    TransformingThrowingLogic
{
    @usableFromInline typealias UpstreamFailure = UpstreamError
    @usableFromInline typealias Failure = any Error

    @inlinable static var name: String { Direction.name }
    @inlinable static var shape: TransformingStepShape { .coder }

    @usableFromInline let code: (Input) throws -> Output
    @usableFromInline var thrown: (any Error)?

    @inlinable init(_ code: @escaping (Input) throws -> Output) {
        self.code = code
    }

    @inlinable mutating func step(_ input: Input) throws(TransformingStepInterruption) -> Output {
        do {
            return try code(input)
        } catch {
            thrown = error
            throw .fail
        }
    }
}

/// Which way a ``CodingStep`` codes, as Combine names its subscription.
@usableFromInline
internal protocol CodingDirection {
    /// `"Encode"` or `"Decode"`.
    static var name: String { get }
}

/// Encoding values (``Publishers/Encode``).
@usableFromInline
internal enum Encoding: CodingDirection {
    @inlinable static var name: String { "Encode" }
}

/// Decoding values (``Publishers/Decode``).
@usableFromInline
internal enum Decoding: CodingDirection {
    @inlinable static var name: String { "Decode" }
}
