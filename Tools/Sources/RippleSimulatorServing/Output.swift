import Foundation
import Synchronization

/// Writing to standard output and error unbuffered, so that a process reading a tool's output sees each
/// line as soon as it is written.
public enum Output {
    private static let name = Mutex("ripple")

    /// The command name that prefixes error lines (`ripple-bluez-sim`, `ripple-ble`); set once at start.
    public static var commandName: String {
        get { name.withLock { $0 } }
        set { name.withLock { $0 = newValue } }
    }

    /// Writes `line` and a newline to standard output.
    public static func line(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Writes `line` and a newline to standard error, prefixed with the command's name.
    public static func error(_ line: String) {
        FileHandle.standardError.write(Data("\(commandName): \(line)\n".utf8))
    }

    /// Writes `text` to standard error as it is (progress lines, tables).
    public static func note(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
