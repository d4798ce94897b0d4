import CLibUV

/// A new pipe whose two ends are close-on-exec from the moment they exist (`pipe2` with `O_CLOEXEC`), so that
/// a `dbus-daemon` or simulator another test spawns meanwhile inherits neither end: a copy of the write end
/// kept open in such a process would hide the pipe's end from a test that reads until it (`pipe` followed by
/// `fcntl(FD_CLOEXEC)` leaves that window open). The caller closes both ends.
///
/// - Returns: The read end and the write end, or nil when the pipe cannot be made.
func closeOnExecPipe() -> (readEnd: Int32, writeEnd: Int32)? {
    var ends: [Int32] = [-1, -1]
    guard ripple_pipe_close_on_exec(&ends) == 0 else { return nil }
    return (ends[0], ends[1])
}
