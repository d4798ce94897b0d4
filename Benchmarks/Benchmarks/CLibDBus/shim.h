// libdbus for the benchmarks' C peer (headers and library from pkg-config's `dbus-1`).
#ifndef RIPPLE_BENCH_CLIBDBUS_SHIM_H
#define RIPPLE_BENCH_CLIBDBUS_SHIM_H
#include <dbus/dbus.h>
#endif
