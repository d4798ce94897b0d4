#if canImport(Glibc)
import Glibc
#endif

/// What this process holds at one moment: resident memory, open descriptors and threads (from
/// `/proc/self`), after returning freed memory to the system so that RSS shows what is live.
struct ProcessSample: Sendable {
    /// Resident set size, in kibibytes.
    var residentKiB: Int
    /// Open file descriptors.
    var descriptors: Int
    /// Threads.
    var threads: Int

    /// Samples the process now.
    ///
    /// - Returns: the sample (zeros for what `/proc` did not say).
    static func now() -> ProcessSample {
        trimHeap()
        let status = read("/proc/self/status")
        return ProcessSample(
            residentKiB: field("VmRSS:", in: status), descriptors: countDescriptors(),
            threads: field("Threads:", in: status))
    }

    /// Returns the heap's free memory to the system (glibc's `malloc_trim`, looked up at run time).
    private static func trimHeap() {
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(nil, "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }

    /// Resident memory in megabytes, for printing.
    var residentMB: Double { Double(residentKiB) / 1024 }

    private static func field(_ name: String, in status: String) -> Int {
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            let digits = line.dropFirst(name.count).filter(\.isNumber)
            return Int(digits) ?? 0
        }
        return 0
    }

    private static func read(_ path: String) -> String {
        guard let file = fopen(path, "r") else { return "" }
        defer { fclose(file) }
        var text = ""
        var buffer = [CChar](repeating: 0, count: 4096)
        while fgets(&buffer, Int32(buffer.count), file) != nil {
            text += String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return text
    }

    /// The entries of `/proc/self/fd`, less the one the listing itself opens.
    private static func countDescriptors() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        var count = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { count += 1 }
        }
        closedir(directory)
        return count - 1
    }
}
