// The libuv API for Swift: RippleLoop imports it as the module `CLibUV`.
// Headers and the library come from pkg-config's `libuv` (Debian: libuv1-dev, see Scripts/setup.sh).
#ifndef RIPPLE_CLIBUV_SHIM_H
#define RIPPLE_CLIBUV_SHIM_H

#include <uv.h>
#include <pthread.h>

// glibc declares pthread_setname_np only under _GNU_SOURCE, which Swift's Glibc module is not built
// with; it has been in glibc since 2.12.
extern int pthread_setname_np(pthread_t thread, const char *name);

/// Names the calling thread (Linux keeps at most 15 bytes); returns 0 or an errno value.
static inline int ripple_set_current_thread_name(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}

#endif
