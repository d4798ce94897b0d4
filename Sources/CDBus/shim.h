// The libdbus API for Swift: RippleDBus imports it as the module `CDBus`.
// Headers and the library come from pkg-config's `dbus-1` (Debian: libdbus-1-dev, see Scripts/setup.sh).
#ifndef RIPPLE_CDBUS_SHIM_H
#define RIPPLE_CDBUS_SHIM_H

#include <dbus/dbus.h>

#endif
