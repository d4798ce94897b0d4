// The libuv API for Swift: RippleLoop imports it as the module `CLibUV`. It also carries the few glibc
// calls that Swift's Glibc module hides (declared only under _GNU_SOURCE), for RippleLoop, RippleDBus,
// RippleBlueZ and their tests.
// Headers and the library come from pkg-config's `libuv` (Debian: libuv1-dev, see Scripts/setup.sh).
#ifndef RIPPLE_CLIBUV_SHIM_H
#define RIPPLE_CLIBUV_SHIM_H

#include <uv.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
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

// recvmmsg and its struct mmsghdr are declared only under _GNU_SOURCE too (Linux 2.6.33, glibc 2.12). The
// kernel's struct mmsghdr is this, and the system call is made by number, so that no declaration here can
// ever clash with glibc's.
struct ripple_packet_header {
    struct msghdr header;
    /// The length of the packet read (set by ripple_receive_packets).
    unsigned int length;
};

/// Points `count` packet headers at `count` slots of `slot_size` bytes from `slots` (packet i goes to the
/// slot at `slots + i * slot_size`, through vectors[i]), once, for every ripple_receive_packets call
/// after: the kernel changes nothing in them but the lengths and flags.
static inline void ripple_prepare_packet_headers(struct ripple_packet_header *headers, struct iovec *vectors,
                                                 unsigned char *slots, unsigned int slot_size,
                                                 unsigned int count) {
    for (unsigned int index = 0; index < count; index++) {
        vectors[index] = (struct iovec){.iov_base = slots + (size_t)index * slot_size, .iov_len = slot_size};
        headers[index] = (struct ripple_packet_header){
            .header = {.msg_iov = &vectors[index], .msg_iovlen = 1},
        };
    }
}

/// Reads up to `count` packets waiting on a datagram or seqpacket socket into the slots of `headers`
/// (see ripple_prepare_packet_headers), without blocking, in one system call (recvmmsg); each packet's
/// length goes to its header's `length` (a packet longer than its slot is cut). Returns how many were
/// read (fewer than `count` when no more were waiting; a length of 0 is the peer's end of a seqpacket
/// socket), or -1 with errno set (EAGAIN: none was waiting).
static inline int ripple_receive_packets(int descriptor, struct ripple_packet_header *headers, unsigned int count) {
    return (int)syscall(SYS_recvmmsg, descriptor, headers, count, MSG_DONTWAIT, (void *)0);
}

#endif
