// A minimal libdbus client: the ceiling RippleDBus is measured against, and the peers both sides use
// (the signal emitter, the method responder). No libdbus type appears here, so Swift never imports libdbus
// through this module.
#ifndef RIPPLE_BENCH_LIBDBUS_PEER_H
#define RIPPLE_BENCH_LIBDBUS_PEER_H

#include <stdint.h>

/// The signal both receivers count: `org.ripple.Bench.Tick(u counter)` from `/org/ripple/Bench`.
#define LDB_PATH "/org/ripple/Bench"
#define LDB_INTERFACE "org.ripple.Bench"
#define LDB_SIGNAL "Tick"
/// The method the responder answers: `org.ripple.Bench.Echo(u) -> u`, at `LDB_RESPONDER_NAME`.
#define LDB_METHOD "Echo"
#define LDB_RESPONDER_NAME "org.ripple.BenchResponder"

typedef struct ldb_connection ldb_connection;
typedef struct ldb_responder ldb_responder;

/// Opens a private connection to the bus at `address` and registers (Hello); NULL on failure.
ldb_connection *_Nullable ldb_connect(const char *_Nonnull address);
/// Closes and releases the connection.
void ldb_disconnect(ldb_connection *_Nonnull connection);

/// Adds the match rule for the Tick signal and waits for the bus to accept it; 0 on success.
int ldb_add_tick_match(ldb_connection *_Nonnull connection);

/// Sends `count` Tick signals numbered `first`, `first + 1`, … and then waits for a round trip to the bus,
/// so that when it returns the bus has routed them all to their receivers' queues; 0 on success.
int ldb_emit_ticks(ldb_connection *_Nonnull connection, uint32_t first, uint32_t count);

/// Reads and dispatches (blocking) until `count` Tick signals have reached a filter that reads the counter
/// of each; returns how many came out of order (expected: `first`, `first + 1`, …), or -1 on an error.
long ldb_receive_ticks(ldb_connection *_Nonnull connection, uint32_t first, uint32_t count);

/// Calls Echo(i) on the responder `count` times in sequence, each waiting for its reply
/// (`dbus_connection_send_with_reply_and_block`); returns how many replies were wrong, or -1 on an error.
long ldb_echo_round_trips(ldb_connection *_Nonnull connection, uint32_t count);

/// Starts a thread with its own connection that owns `LDB_RESPONDER_NAME` and answers Echo(u) with the
/// same u; returns once the name is owned (NULL on failure).
ldb_responder *_Nullable ldb_responder_start(const char *_Nonnull address);
/// Stops the responder thread and releases it.
void ldb_responder_stop(ldb_responder *_Nonnull responder);

#endif
