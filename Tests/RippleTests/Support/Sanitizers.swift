#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether this test process runs under ThreadSanitizer or AddressSanitizer (`Scripts/sanitize`): their runtimes
/// define `__tsan_init` or `__asan_init`, looked up among the process's loaded symbols.
let runsUnderASanitizer: Bool = dlsym(nil, "__tsan_init") != nil || dlsym(nil, "__asan_init") != nil
