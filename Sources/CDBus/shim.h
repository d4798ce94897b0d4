// The libdbus API for Swift: RippleDBus imports it as the module `CDBus`.
// Headers and the library come from pkg-config's `dbus-1` (Debian: libdbus-1-dev, see Scripts/setup.sh).
#ifndef RIPPLE_CDBUS_SHIM_H
#define RIPPLE_CDBUS_SHIM_H

#include <dbus/dbus.h>
#include <errno.h>
#include <spawn.h>

// For PrivateDBusDaemon: glibc declares posix_spawn_file_actions_addclosefrom_np only under _GNU_SOURCE,
// which Swift's Glibc module is not built with; it has been in glibc since 2.34. Weak, so that the library
// still links against an older glibc, where the wrapper below does nothing.
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from)
    __attribute__((weak));

/// Adds to `actions` the closing of every descriptor from `from` up (a spawned watcher and its dbus-daemon
/// then hold no descriptor of the spawning process beyond those they are given); returns 0, or ENOSYS when
/// the C library lacks it (glibc before 2.34), or its error.
static inline int ripple_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    if (posix_spawn_file_actions_addclosefrom_np == 0) return ENOSYS;
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

#endif
