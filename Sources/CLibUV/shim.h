// The libuv API for Swift: RippleLoop imports it as the module `CLibUV`. It also carries the few glibc
// calls that Swift's Glibc module hides (declared only under _GNU_SOURCE), for RippleLoop, RippleDBus and
// their tests.
// Headers and the library come from pkg-config's `libuv` (Debian: libuv1-dev, see Scripts/setup.sh).
#ifndef RIPPLE_CLIBUV_SHIM_H
#define RIPPLE_CLIBUV_SHIM_H

#include <uv.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

// glibc declares pthread_setname_np only under _GNU_SOURCE, which Swift's Glibc module is not built
// with; it has been in glibc since 2.12.
extern int pthread_setname_np(pthread_t thread, const char *name);

/// Names the calling thread (Linux keeps at most 15 bytes); returns 0 or an errno value.
static inline int ripple_set_current_thread_name(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}

// Like pthread_setname_np, pipe2 is declared only under _GNU_SOURCE; it has been in glibc since 2.9.
extern int pipe2(int ends[2], int flags);

/// Makes a pipe whose two ends are close-on-exec from the moment they exist; returns 0, or -1 with errno
/// set. `pipe` then `fcntl(FD_CLOEXEC)` leaves a window in which a process that another thread spawns
/// (a dbus-daemon, a simulator) inherits an end, and a write end kept open there hides the pipe's end.
static inline int ripple_pipe_close_on_exec(int ends[2]) {
    return pipe2(ends, O_CLOEXEC);
}

#endif
