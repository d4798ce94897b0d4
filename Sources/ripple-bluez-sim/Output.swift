import Foundation

/// Writing to standard output and error unbuffered, so that a process reading the simulator's output
/// sees each line as soon as it is written.
enum Output {
    /// Writes `line` and a newline to standard output.
    static func line(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Writes `line` and a newline to standard error, prefixed with the command's name.
    static func error(_ line: String) {
        FileHandle.standardError.write(Data("ripple-bluez-sim: \(line)\n".utf8))
    }
}
