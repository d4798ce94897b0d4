import CLibUV

/// Why an ``EventLoop`` operation failed.
public enum EventLoopError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// libuv returned the error `code` (a negative `errno` value, such as `UV_EBADF`).
    case libuv(code: Int32)
    /// ``EventLoop/run()`` was called while the loop was already running (on this or another thread).
    case alreadyRunning
    /// The operating system refused to start the loop's thread; `errno` is `pthread_create`'s result.
    case threadCreationFailed(errno: Int32)

    /// The error's name and meaning, e.g. `"EBADF: bad file descriptor"`.
    public var description: String {
        switch self {
        case .libuv(let code):
            let name = uv_err_name(code).map { String(cString: $0) } ?? "libuv error \(code)"
            let message = uv_strerror(code).map { String(cString: $0) } ?? "unknown error"
            return "\(name): \(message)"
        case .alreadyRunning:
            return "the event loop is already running"
        case .threadCreationFailed(let errno):
            return "the event loop's thread could not be created (errno \(errno))"
        }
    }
}
