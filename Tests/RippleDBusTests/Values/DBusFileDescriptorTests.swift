import Testing

@testable import RippleDBus

#if canImport(Glibc)
import Glibc
#endif

/// A pipe whose two ends the test closes itself (those it did not give away).
private struct TestPipe {
    let readEnd: Int32
    let writeEnd: Int32

    init() throws {
        (readEnd, writeEnd) = try #require(closeOnExecPipe())
        _ = fcntl(readEnd, F_SETFL, O_NONBLOCK)  // a leaked write end fails a test instead of blocking it
    }

    /// Writes `text` through `fd` and reads it back from the read end.
    func transfer(_ text: String, through fd: Int32) -> String {
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { return "<write failed>" }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
        guard count >= 0 else { return "<read failed>" }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// Whether the read end sees end of file: every copy of the write end is closed.
    func writeEndIsClosedEverywhere() -> Bool {
        var byte: UInt8 = 0
        return read(readEnd, &byte, 1) == 0
    }
}

@Suite struct DBusFileDescriptorTests {
    @Test func duplicatingKeepsTheCallersDescriptorAndOwnsAnother() throws {
        let pipe = try TestPipe()
        defer { close(pipe.readEnd) }
        var descriptor: DBusFileDescriptor? = try DBusFileDescriptor(duplicating: pipe.writeEnd)
        let owned = try #require(descriptor?.fileDescriptor)
        #expect(owned >= 0)
        #expect(owned != pipe.writeEnd)
        #expect(descriptor?.description == "fd \(owned)")
        #expect(pipe.transfer("through the duplicate", through: owned) == "through the duplicate")
        close(pipe.writeEnd)
        descriptor = nil
        #expect(pipe.writeEndIsClosedEverywhere(), "releasing the object closed its descriptor")
    }

    @Test func takeHandsOwnershipOutOnce() throws {
        let pipe = try TestPipe()
        defer { close(pipe.readEnd) }
        let descriptor = DBusFileDescriptor(taking: pipe.writeEnd)
        #expect(descriptor.take() == pipe.writeEnd)
        #expect(descriptor.take() == nil)
        #expect(descriptor.fileDescriptor == -1)
        #expect(descriptor.description == "fd -1")
        #expect(throws: DBusError.invalidArgument("the file descriptor was taken out of its DBusFileDescriptor")) {
            try descriptor.duplicate()
        }
        #expect(pipe.transfer("still open", through: pipe.writeEnd) == "still open", "take() did not close it")
        close(pipe.writeEnd)
    }

    @Test func duplicateGivesTheCallerANewDescriptor() throws {
        let pipe = try TestPipe()
        defer { close(pipe.readEnd) }
        let descriptor = DBusFileDescriptor(taking: pipe.writeEnd)
        let copy = try descriptor.duplicate()
        #expect(copy != pipe.writeEnd)
        #expect(fcntl(copy, F_GETFD) == FD_CLOEXEC)
        #expect(pipe.transfer("via the copy", through: copy) == "via the copy")
        close(copy)
    }

    @Test func duplicatingABadDescriptorThrows() {
        #expect(throws: DBusError.invalidArgument("cannot duplicate file descriptor -1: Bad file descriptor")) {
            try DBusFileDescriptor(duplicating: -1)
        }
    }

    @Test func equalityIsIdentity() throws {
        let pipe = try TestPipe()
        let first = DBusFileDescriptor(taking: pipe.readEnd)
        let second = DBusFileDescriptor(taking: pipe.writeEnd)
        #expect(first == first)
        #expect(first != second)
        #expect(Set([first, first, second]).count == 2)
        #expect(DBusValue.unixFD(first) == .unixFD(first))
        #expect(DBusValue.unixFD(first) != .unixFD(second))
    }
}
