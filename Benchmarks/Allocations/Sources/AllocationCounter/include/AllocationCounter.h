#ifndef RIPPLE_ALLOCATION_COUNTER_H
#define RIPPLE_ALLOCATION_COUNTER_H

#include <stdint.h>

/// Heap allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign, valloc) made by the
/// calling thread since it started, counted by this program's replacements of those functions.
uint64_t allocation_counter_allocations(void);

/// Of the calling thread's allocations, those called for from the code of the library named by
/// `allocation_counter_attribute` (directly: an allocation that library makes through another library, such
/// as libc's `strdup`, is not among them).
uint64_t allocation_counter_attributed_allocations(void);

/// Attributes allocations called for from the executable code of the loaded library whose file name
/// contains `name` (such as "libdbus-1.so"); returns 0 when no such library is loaded. Call it once,
/// before counting starts.
int allocation_counter_attribute(const char *name);

/// Calls to free (with a pointer other than NULL) made by the calling thread since it started.
uint64_t allocation_counter_frees(void);

/// Whether the replacements are the process's allocator (they are not under a sanitizer, which brings
/// its own); without them every count stays 0.
int allocation_counter_is_active(void);

/// Does nothing with `value`, out of the optimiser's sight: keeps a computed value alive.
void allocation_counter_black_hole(int64_t value);

#endif
