import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A folder in the temporary directory for the files a test process writes (world files, captured output),
/// removed when the process ends, however it ends: a shell holding the folder's name waits on a ``Lifeline``
/// and removes the folder when the lifeline breaks. Tests may remove what they wrote sooner.
public enum ScratchFolder {
    /// The folder's path (made, and its remover started, on first use).
    public static var path: String {
        get throws { try made.get().path }
    }

    /// Writes `text` to a file named `name` in a subfolder of its own (so that tests running at once may use
    /// the same name) and returns the file's path.
    ///
    /// - Parameters:
    ///   - name: The file's name, with its extension.
    ///   - text: What the file holds.
    /// - Returns: The file's path.
    /// - Throws: The error of making the folder or writing the file.
    public static func file(named name: String, holding text: String) throws -> String {
        let folder = URL(fileURLWithPath: try path).appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let file = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file.path
    }

    private struct Made: Sendable {
        let path: String
        /// Held until the process ends.
        let lifeline: Lifeline
        /// The shell that removes the folder (kept, though only the lifeline ends it).
        let remover: Process
    }

    private static let made = Result<Made, any Error> {
        let pattern = FileManager.default.temporaryDirectory.appendingPathComponent("ripple-tests-XXXXXX").path
        var template = Array(pattern.utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { mkdtemp($0) != nil } ?? false
        }
        guard made else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let remover = Process()
        remover.executableURL = URL(fileURLWithPath: "/bin/sh")
        // Reads its standard input to the end (nobody writes to it), then removes the folder.
        remover.arguments = ["-c", #"cat >/dev/null; rm -rf -- "$0""#, path]
        remover.standardOutput = FileHandle.nullDevice
        remover.standardError = FileHandle.nullDevice
        do {
            return Made(path: path, lifeline: try Lifeline(running: remover), remover: remover)
        } catch {
            rmdir(path)
            throw error
        }
    }
}
