#if canImport(Glibc)
import Glibc
#endif

/// `write(2)` to standard error.
func writeToStandardError(_ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    write(STDERR_FILENO, bytes, count)
}
