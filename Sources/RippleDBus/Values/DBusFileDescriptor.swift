import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One open Unix file descriptor carried by a D-Bus message (type `h`): the object owns it and closes it
/// when it is released, unless its ownership was taken out with ``take()``.
///
/// Messages read from libdbus hold descriptors libdbus duplicated for them; writing a message duplicates
/// the descriptor again into the message, so the object keeps its own. Two instances are equal only when
/// they are the same object.
public final class DBusFileDescriptor: Sendable, Hashable, CustomStringConvertible {
    private let descriptor: Atomic<Int32>

    /// Duplicates `fd` (with close-on-exec set) and owns the duplicate; `fd` stays the caller's.
    ///
    /// - Parameter fd: the descriptor to duplicate.
    /// - Throws: ``DBusError/invalidArgument(_:)`` when `fd` is not an open descriptor or the process is out of
    ///   descriptors.
    public init(duplicating fd: Int32) throws(DBusError) {
        let duplicate = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard duplicate >= 0 else {
            throw .invalidArgument("cannot duplicate file descriptor \(fd): \(Self.errorDescription(errno))")
        }
        self.descriptor = Atomic(duplicate)
    }

    /// Takes ownership of `fd`, which the object closes when released.
    init(taking fd: Int32) {
        self.descriptor = Atomic(fd)
    }

    deinit {
        let fd = descriptor.exchange(-1, ordering: .acquiringAndReleasing)
        if fd >= 0 {
            close(fd)
        }
    }

    /// The descriptor, borrowed: valid while this object lives and until ``take()``; -1 after a take.
    /// Do not close it.
    public var fileDescriptor: Int32 {
        descriptor.load(ordering: .acquiring)
    }

    /// Takes ownership of the descriptor out of this object: the first call returns it (the caller now
    /// closes it) and leaves ``fileDescriptor`` -1; later calls return nil.
    ///
    /// - Returns: the descriptor the first time, then nil.
    public func take() -> Int32? {
        let fd = descriptor.exchange(-1, ordering: .acquiringAndReleasing)
        return fd >= 0 ? fd : nil
    }

    /// A new duplicate of the descriptor (close-on-exec), owned by the caller.
    ///
    /// - Returns: the new descriptor.
    /// - Throws: ``DBusError/invalidArgument(_:)`` when the descriptor was taken or the duplication fails.
    public func duplicate() throws(DBusError) -> Int32 {
        let fd = fileDescriptor
        guard fd >= 0 else { throw .invalidArgument("the file descriptor was taken out of its DBusFileDescriptor") }
        let duplicate = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard duplicate >= 0 else {
            throw .invalidArgument("cannot duplicate file descriptor \(fd): \(Self.errorDescription(errno))")
        }
        return duplicate
    }

    /// `fd 7` (`fd -1` once taken).
    public var description: String { "fd \(fileDescriptor)" }

    /// Identity: the same object.
    ///
    /// - Parameters:
    ///   - lhs: a descriptor object.
    ///   - rhs: another.
    /// - Returns: whether they are the same object.
    public static func == (lhs: DBusFileDescriptor, rhs: DBusFileDescriptor) -> Bool {
        lhs === rhs
    }

    /// Hashes the object's identity.
    ///
    /// - Parameter hasher: the hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }

    private static func errorDescription(_ code: Int32) -> String {
        guard let message = strerror(code) else { return "errno \(code)" }
        return String(cString: message)
    }
}
