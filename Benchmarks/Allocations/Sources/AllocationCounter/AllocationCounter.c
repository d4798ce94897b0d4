// Counts the heap allocations of each thread, for Ripple's allocation gate.
//
// This program defines malloc and its relatives itself. The dynamic linker resolves every library's calls
// (the Swift runtime's, libdbus's, libuv's) to the executable's definitions, which count on the calling
// thread and hand the work to glibc's own implementation (`__libc_malloc` and friends, exported by glibc for
// exactly this purpose). The counts live in thread-local storage of the executable (the local-exec model:
// no allocation, no lock, no atomic read-modify-write), so counting costs an increment and one thread's
// allocations never mix with another's: the gate reads the counts of the thread that runs what it measures.
// Allocations are also attributed by their caller's address to one library (libdbus), whose share varies
// with how many messages each read from its socket brings.
#define _GNU_SOURCE
#include "AllocationCounter.h"

#include <errno.h>
#include <link.h>
#include <string.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define ALLOCATION_COUNTER_SANITIZED 1
#endif
#endif

#ifndef ALLOCATION_COUNTER_SANITIZED

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);
extern void __libc_free(void *pointer);

static __thread uint64_t allocations;
static __thread uint64_t attributed;
static __thread uint64_t frees;

/// The executable code of the attributed library: [attributed_start, attributed_end). Written once, before
/// counting starts.
static uintptr_t attributed_start;
static uintptr_t attributed_end;

/// Counts one allocation called for from `caller`.
static inline void count(void *caller) {
    allocations += 1;
    uintptr_t address = (uintptr_t)caller;
    if (address >= attributed_start && address < attributed_end) {
        attributed += 1;
    }
}

void *malloc(size_t size) {
    count(__builtin_return_address(0));
    return __libc_malloc(size);
}

void *calloc(size_t count_, size_t size) {
    count(__builtin_return_address(0));
    return __libc_calloc(count_, size);
}

void *realloc(void *pointer, size_t size) {
    count(__builtin_return_address(0));
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    count(__builtin_return_address(0));
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count(__builtin_return_address(0));
    return __libc_memalign(alignment, size);
}

void *valloc(size_t size) {
    count(__builtin_return_address(0));
    return __libc_valloc(size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    // The alignment must be a power of two and a multiple of the size of a pointer.
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) {
        return EINVAL;
    }
    count(__builtin_return_address(0));
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) {
        return ENOMEM;
    }
    *result = pointer;
    return 0;
}

void free(void *pointer) {
    if (pointer != NULL) {
        frees += 1;
    }
    __libc_free(pointer);
}

uint64_t allocation_counter_allocations(void) { return allocations; }

uint64_t allocation_counter_attributed_allocations(void) { return attributed; }

uint64_t allocation_counter_frees(void) { return frees; }

int allocation_counter_is_active(void) { return 1; }

/// dl_iterate_phdr's callback: records the executable segment of the library whose name contains `data`.
static int find_library(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    const char *name = data;
    if (info->dlpi_name == NULL || strstr(info->dlpi_name, name) == NULL) {
        return 0;
    }
    for (ElfW(Half) index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type == PT_LOAD && (header->p_flags & PF_X) != 0) {
            attributed_start = info->dlpi_addr + header->p_vaddr;
            attributed_end = attributed_start + header->p_memsz;
            return 1;
        }
    }
    return 0;
}

int allocation_counter_attribute(const char *name) { return dl_iterate_phdr(find_library, (void *)name); }

#else

uint64_t allocation_counter_allocations(void) { return 0; }

uint64_t allocation_counter_attributed_allocations(void) { return 0; }

int allocation_counter_attribute(const char *name) {
    (void)name;
    return 0;
}

uint64_t allocation_counter_frees(void) { return 0; }

int allocation_counter_is_active(void) { return 0; }

#endif

void allocation_counter_black_hole(int64_t value) { (void)value; }
