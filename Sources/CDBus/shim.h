// The libdbus API for Swift: RippleDBus imports it as the module `CDBus`.
// Headers and the library come from pkg-config's `dbus-1` (Debian: libdbus-1-dev, see Scripts/setup.sh).
#ifndef RIPPLE_CDBUS_SHIM_H
#define RIPPLE_CDBUS_SHIM_H

#include <dbus/dbus.h>
#include <spawn.h>

// For PrivateDBusDaemon: glibc declares posix_spawn_file_actions_addclosefrom_np only under _GNU_SOURCE,
// which Swift's Glibc module is not built with; it has been in glibc since 2.34. A spawned watcher and its
// dbus-daemon then hold no descriptor of the spawning process beyond the three they are given.
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

#endif
