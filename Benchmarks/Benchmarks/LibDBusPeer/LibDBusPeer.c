// The libdbus C side of the D-Bus benchmarks: what a minimal, hand-written libdbus client costs.
#include "LibDBusPeer.h"

#include <dbus/dbus.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

struct ldb_connection {
    DBusConnection *connection;
};

ldb_connection *ldb_connect(const char *address) {
    DBusError error;
    dbus_error_init(&error);
    DBusConnection *connection = dbus_connection_open_private(address, &error);
    if (connection == NULL) {
        dbus_error_free(&error);
        return NULL;
    }
    if (!dbus_bus_register(connection, &error)) {
        dbus_error_free(&error);
        dbus_connection_close(connection);
        dbus_connection_unref(connection);
        return NULL;
    }
    dbus_connection_set_exit_on_disconnect(connection, FALSE);
    ldb_connection *result = malloc(sizeof *result);
    if (result == NULL) {
        dbus_connection_close(connection);
        dbus_connection_unref(connection);
        return NULL;
    }
    result->connection = connection;
    return result;
}

void ldb_disconnect(ldb_connection *connection) {
    dbus_connection_close(connection->connection);
    dbus_connection_unref(connection->connection);
    free(connection);
}

int ldb_add_tick_match(ldb_connection *connection) {
    DBusError error;
    dbus_error_init(&error);
    dbus_bus_add_match(connection->connection,
                       "type='signal',interface='" LDB_INTERFACE "',member='" LDB_SIGNAL "'", &error);
    if (dbus_error_is_set(&error)) {
        dbus_error_free(&error);
        return -1;
    }
    return 0;
}

/// A blocking round trip to the bus (Peer.Ping): the bus answers after handling what was sent before.
static int ping_bus(DBusConnection *connection) {
    DBusMessage *ping = dbus_message_new_method_call("org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                     "org.freedesktop.DBus.Peer", "Ping");
    if (ping == NULL) return -1;
    DBusError error;
    dbus_error_init(&error);
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(connection, ping, -1, &error);
    dbus_message_unref(ping);
    if (reply == NULL) {
        dbus_error_free(&error);
        return -1;
    }
    dbus_message_unref(reply);
    return 0;
}

int ldb_emit_ticks(ldb_connection *connection, uint32_t first, uint32_t count) {
    for (uint32_t index = 0; index < count; index++) {
        DBusMessage *signal = dbus_message_new_signal(LDB_PATH, LDB_INTERFACE, LDB_SIGNAL);
        if (signal == NULL) return -1;
        dbus_uint32_t counter = first + index;
        if (!dbus_message_append_args(signal, DBUS_TYPE_UINT32, &counter, DBUS_TYPE_INVALID) ||
            !dbus_connection_send(connection->connection, signal, NULL)) {
            dbus_message_unref(signal);
            return -1;
        }
        dbus_message_unref(signal);
    }
    dbus_connection_flush(connection->connection);
    return ping_bus(connection->connection);
}

/// What the Tick filter counts.
struct tick_count {
    uint32_t expected;
    uint32_t received;
    long outOfOrder;
};

static DBusHandlerResult count_tick(DBusConnection *connection, DBusMessage *message, void *data) {
    (void)connection;
    struct tick_count *count = data;
    if (!dbus_message_is_signal(message, LDB_INTERFACE, LDB_SIGNAL)) {
        return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    }
    DBusMessageIter iterator;
    dbus_uint32_t counter = 0;
    if (dbus_message_iter_init(message, &iterator) && dbus_message_iter_get_arg_type(&iterator) == DBUS_TYPE_UINT32) {
        dbus_message_iter_get_basic(&iterator, &counter);
    }
    if (counter != count->expected) count->outOfOrder++;
    count->expected = counter + 1;
    count->received++;
    return DBUS_HANDLER_RESULT_HANDLED;
}

long ldb_receive_ticks(ldb_connection *connection, uint32_t first, uint32_t count) {
    struct tick_count state = {.expected = first, .received = 0, .outOfOrder = 0};
    if (!dbus_connection_add_filter(connection->connection, count_tick, &state, NULL)) return -1;
    while (state.received < count) {
        if (!dbus_connection_read_write_dispatch(connection->connection, -1)) break;
    }
    dbus_connection_remove_filter(connection->connection, count_tick, &state);
    return state.received == count ? state.outOfOrder : -1;
}

long ldb_echo_round_trips(ldb_connection *connection, uint32_t count) {
    long wrong = 0;
    for (uint32_t index = 0; index < count; index++) {
        DBusMessage *call = dbus_message_new_method_call(LDB_RESPONDER_NAME, LDB_PATH, LDB_INTERFACE, LDB_METHOD);
        if (call == NULL) return -1;
        dbus_uint32_t argument = index;
        if (!dbus_message_append_args(call, DBUS_TYPE_UINT32, &argument, DBUS_TYPE_INVALID)) {
            dbus_message_unref(call);
            return -1;
        }
        DBusError error;
        dbus_error_init(&error);
        DBusMessage *reply = dbus_connection_send_with_reply_and_block(connection->connection, call, -1, &error);
        dbus_message_unref(call);
        if (reply == NULL) {
            dbus_error_free(&error);
            return -1;
        }
        dbus_uint32_t answer = 0;
        DBusMessageIter iterator;
        if (dbus_message_iter_init(reply, &iterator) && dbus_message_iter_get_arg_type(&iterator) == DBUS_TYPE_UINT32) {
            dbus_message_iter_get_basic(&iterator, &answer);
        }
        if (answer != index) wrong++;
        dbus_message_unref(reply);
    }
    return wrong;
}

// MARK: The responder

struct ldb_responder {
    pthread_t thread;
    DBusConnection *connection;
    atomic_bool stop;
};

static DBusHandlerResult answer_echo(DBusConnection *connection, DBusMessage *message, void *data) {
    (void)data;
    if (!dbus_message_is_method_call(message, LDB_INTERFACE, LDB_METHOD)) {
        return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    }
    dbus_uint32_t argument = 0;
    DBusMessageIter iterator;
    if (dbus_message_iter_init(message, &iterator) && dbus_message_iter_get_arg_type(&iterator) == DBUS_TYPE_UINT32) {
        dbus_message_iter_get_basic(&iterator, &argument);
    }
    DBusMessage *reply = dbus_message_new_method_return(message);
    if (reply != NULL) {
        dbus_message_append_args(reply, DBUS_TYPE_UINT32, &argument, DBUS_TYPE_INVALID);
        dbus_connection_send(connection, reply, NULL);
        dbus_message_unref(reply);
    }
    return DBUS_HANDLER_RESULT_HANDLED;
}

static void *run_responder(void *data) {
    ldb_responder *responder = data;
    while (!atomic_load(&responder->stop)) {
        if (!dbus_connection_read_write_dispatch(responder->connection, 50)) break;
    }
    return NULL;
}

ldb_responder *ldb_responder_start(const char *address) {
    ldb_connection *opened = ldb_connect(address);
    if (opened == NULL) return NULL;
    DBusConnection *connection = opened->connection;
    free(opened);
    DBusError error;
    dbus_error_init(&error);
    int owned = dbus_bus_request_name(connection, LDB_RESPONDER_NAME, DBUS_NAME_FLAG_DO_NOT_QUEUE, &error);
    ldb_responder *responder = calloc(1, sizeof *responder);
    if (owned != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER || responder == NULL ||
        !dbus_connection_add_filter(connection, answer_echo, NULL, NULL)) {
        dbus_error_free(&error);
        free(responder);
        dbus_connection_close(connection);
        dbus_connection_unref(connection);
        return NULL;
    }
    responder->connection = connection;
    atomic_init(&responder->stop, false);
    if (pthread_create(&responder->thread, NULL, run_responder, responder) != 0) {
        dbus_connection_close(connection);
        dbus_connection_unref(connection);
        free(responder);
        return NULL;
    }
    return responder;
}

void ldb_responder_stop(ldb_responder *responder) {
    atomic_store(&responder->stop, true);
    pthread_join(responder->thread, NULL);
    dbus_connection_close(responder->connection);
    dbus_connection_unref(responder->connection);
    free(responder);
}
