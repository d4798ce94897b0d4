/*
 * notification_peer: the minimal C clients Ripple's notification benchmarks compare with.
 *
 *   notification_peer --transport bus|socket --count N --characteristic UUID ADDRESS...
 *
 * Talks to bluetoothd (or the simulator) on the system bus through libdbus (DBUS_SYSTEM_BUS_ADDRESS is
 * honoured): connects each peripheral on hci0 (Device1.Connect, then waits for ServicesResolved), finds the
 * characteristic by UUID, and then either
 *   - bus:    adds a match for its PropertiesChanged signals and calls StartNotify, then pops and parses
 *             each signal's Value (the D-Bus path's ceiling: libdbus and nothing else), or
 *   - socket: calls AcquireNotify and reads the SOCK_SEQPACKET sockets it returns with poll() and recv()
 *             (the socket path's ceiling).
 * Each payload is expected to be laid out as the simulator's `timestamped` source: a little-endian UInt32
 * sequence number, then the CLOCK_MONOTONIC send time in nanoseconds as a little-endian UInt64.
 *
 * Prints one JSON object: received, lost, reordered, rate, this process's CPU time per notification from
 * subscribing to the last notification, and latency percentiles, with the same schema as
 * `ripple-ble bench --json`.
 */
#define _GNU_SOURCE
#include <dbus/dbus.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_PERIPHERALS 64

static uint64_t clock_ns(clockid_t clock) {
    struct timespec now;
    clock_gettime(clock, &now);
    return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

static void die(const char *what, DBusError *error) {
    fprintf(stderr, "notification_peer: %s%s%s\n", what, error && dbus_error_is_set(error) ? ": " : "",
            error && dbus_error_is_set(error) ? error->message : "");
    exit(1);
}

/* What arrived, and the checks on it. */
static struct {
    long received, lost, reordered, bytes;
    uint32_t next[MAX_PERIPHERALS];
    int started[MAX_PERIPHERALS];
    uint64_t first, last;
    uint64_t *latencies;
    long latency_count, capacity;
} meter;

static uint64_t little(const unsigned char *bytes, int count) {
    uint64_t value = 0;
    for (int index = count - 1; index >= 0; index--) value = value << 8 | bytes[index];
    return value;
}

static void record(int source, const unsigned char *payload, int length) {
    uint64_t now = clock_ns(CLOCK_MONOTONIC);
    meter.received++;
    meter.bytes += length;
    if (!meter.first) meter.first = now;
    meter.last = now;
    if (length >= 12) {
        uint64_t sent = little(payload + 4, 8);
        if (now >= sent && meter.latency_count < meter.capacity) meter.latencies[meter.latency_count++] = now - sent;
    }
    if (length >= 4) {
        uint32_t sequence = (uint32_t)little(payload, 4);
        if (!meter.started[source]) {
            meter.started[source] = 1;
            meter.next[source] = sequence + 1;
        } else if (sequence == meter.next[source]) {
            meter.next[source] = sequence + 1;
        } else if ((uint32_t)(sequence - meter.next[source]) < 0x80000000u) {
            meter.lost += sequence - meter.next[source];
            meter.next[source] = sequence + 1;
        } else {
            meter.reordered++;
            if (meter.lost > 0) meter.lost--;
        }
    }
}

static DBusMessage *call(DBusConnection *connection, DBusMessage *message, int timeout_ms) {
    DBusError error;
    dbus_error_init(&error);
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(connection, message, timeout_ms, &error);
    if (!reply) {
        fprintf(stderr, "notification_peer: %s.%s failed\n", dbus_message_get_interface(message), dbus_message_get_member(message));
        die("a call failed", &error);
    }
    dbus_message_unref(message);
    return reply;
}

static DBusMessage *method(const char *path, const char *interface, const char *member) {
    DBusMessage *message = dbus_message_new_method_call("org.bluez", path, interface, member);
    if (!message) die("out of memory", NULL);
    return message;
}

static int services_resolved(DBusConnection *connection, const char *path) {
    DBusMessage *message = method(path, "org.freedesktop.DBus.Properties", "Get");
    const char *interface = "org.bluez.Device1", *name = "ServicesResolved";
    dbus_message_append_args(message, DBUS_TYPE_STRING, &interface, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID);
    DBusMessage *reply = call(connection, message, 5000);
    DBusMessageIter iter, variant;
    dbus_bool_t value = FALSE;
    if (dbus_message_iter_init(reply, &iter) && dbus_message_iter_get_arg_type(&iter) == DBUS_TYPE_VARIANT) {
        dbus_message_iter_recurse(&iter, &variant);
        if (dbus_message_iter_get_arg_type(&variant) == DBUS_TYPE_BOOLEAN) dbus_message_iter_get_basic(&variant, &value);
    }
    dbus_message_unref(reply);
    return value;
}

/* The path of the characteristic `uuid` under `device`, from GetManagedObjects, into `found`. */
static int find_characteristic(DBusConnection *connection, const char *device, const char *uuid, char *found, size_t size) {
    DBusMessage *reply = call(connection, method("/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects"), 10000);
    DBusMessageIter root, objects, object, interfaces, interface, properties, property, value;
    int ok = 0;
    size_t prefix = strlen(device);
    if (!dbus_message_iter_init(reply, &root) || dbus_message_iter_get_arg_type(&root) != DBUS_TYPE_ARRAY) goto done;
    dbus_message_iter_recurse(&root, &objects);
    for (; !ok && dbus_message_iter_get_arg_type(&objects) == DBUS_TYPE_DICT_ENTRY; dbus_message_iter_next(&objects)) {
        const char *path;
        dbus_message_iter_recurse(&objects, &object);
        dbus_message_iter_get_basic(&object, &path);
        if (strncmp(path, device, prefix) != 0 || path[prefix] != '/') continue;
        dbus_message_iter_next(&object);
        dbus_message_iter_recurse(&object, &interfaces);
        for (; !ok && dbus_message_iter_get_arg_type(&interfaces) == DBUS_TYPE_DICT_ENTRY; dbus_message_iter_next(&interfaces)) {
            const char *name;
            dbus_message_iter_recurse(&interfaces, &interface);
            dbus_message_iter_get_basic(&interface, &name);
            if (strcmp(name, "org.bluez.GattCharacteristic1") != 0) continue;
            dbus_message_iter_next(&interface);
            dbus_message_iter_recurse(&interface, &properties);
            for (; dbus_message_iter_get_arg_type(&properties) == DBUS_TYPE_DICT_ENTRY; dbus_message_iter_next(&properties)) {
                const char *key, *text;
                dbus_message_iter_recurse(&properties, &property);
                dbus_message_iter_get_basic(&property, &key);
                if (strcmp(key, "UUID") != 0) continue;
                dbus_message_iter_next(&property);
                dbus_message_iter_recurse(&property, &value);
                if (dbus_message_iter_get_arg_type(&value) != DBUS_TYPE_STRING) continue;
                dbus_message_iter_get_basic(&value, &text);
                if (strcasecmp(text, uuid) == 0 && strlen(path) < size) {
                    strcpy(found, path);
                    ok = 1;
                }
            }
        }
    }
done:
    dbus_message_unref(reply);
    return ok;
}

static int compare(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double percentile(double fraction) {
    if (!meter.latency_count) return 0;
    long index = (long)(meter.latency_count * fraction + 0.999999) - 1;
    if (index < 0) index = 0;
    if (index >= meter.latency_count) index = meter.latency_count - 1;
    return meter.latencies[index] / 1000.0;
}

int main(int argc, char **argv) {
    const char *transport = "socket", *uuid = NULL;
    long count = 10000;
    const char *addresses[MAX_PERIPHERALS];
    int peripherals = 0;
    for (int index = 1; index < argc; index++) {
        if (!strcmp(argv[index], "--transport") && index + 1 < argc) transport = argv[++index];
        else if (!strcmp(argv[index], "--count") && index + 1 < argc) count = atol(argv[++index]);
        else if (!strcmp(argv[index], "--characteristic") && index + 1 < argc) uuid = argv[++index];
        else if (peripherals < MAX_PERIPHERALS) addresses[peripherals++] = argv[index];
    }
    int bus = !strcmp(transport, "bus");
    if (!uuid || !peripherals || count <= 0 || (!bus && strcmp(transport, "socket"))) {
        fprintf(stderr, "usage: notification_peer --transport bus|socket --count N --characteristic UUID ADDRESS...\n");
        return 64;
    }
    meter.capacity = count;
    meter.latencies = calloc((size_t)count, sizeof(uint64_t));
    if (!meter.latencies) die("out of memory", NULL);

    DBusError error;
    dbus_error_init(&error);
    DBusConnection *connection = dbus_bus_get_private(DBUS_BUS_SYSTEM, &error);
    if (!connection) die("cannot reach the system bus", &error);
    dbus_connection_set_exit_on_disconnect(connection, FALSE);

    char characteristics[MAX_PERIPHERALS][256];
    for (int index = 0; index < peripherals; index++) {
        char device[64] = "/org/bluez/hci0/dev_";
        size_t at = strlen(device);
        for (const char *c = addresses[index]; *c && at < sizeof(device) - 1; c++) device[at++] = *c == ':' ? '_' : *c;
        device[at] = 0;
        dbus_message_unref(call(connection, method(device, "org.bluez.Device1", "Connect"), 30000));
        uint64_t deadline = clock_ns(CLOCK_MONOTONIC) + 30000000000ull;
        while (!services_resolved(connection, device)) {
            if (clock_ns(CLOCK_MONOTONIC) > deadline) die("services never resolved", NULL);
            usleep(5000);
        }
        if (!find_characteristic(connection, device, uuid, characteristics[index], sizeof characteristics[index]))
            die("no such characteristic", NULL);
    }

    uint64_t cpu_start = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    if (bus) {
        for (int index = 0; index < peripherals; index++) {
            char rule[512];
            snprintf(rule, sizeof rule,
                     "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',"
                     "member='PropertiesChanged',path='%.255s'", characteristics[index]);
            dbus_bus_add_match(connection, rule, &error);
            if (dbus_error_is_set(&error)) die("AddMatch failed", &error);
        }
        /* StartNotify for every peripheral without waiting for each answer (the first peripherals'
           notifications would pile up while later calls wait); the answers are checked as they come. */
        for (int index = 0; index < peripherals; index++) {
            DBusMessage *message = method(characteristics[index], "org.bluez.GattCharacteristic1", "StartNotify");
            if (!dbus_connection_send(connection, message, NULL)) die("out of memory", NULL);
            dbus_message_unref(message);
        }
        while (meter.received < count && dbus_connection_read_write(connection, -1)) {
            DBusMessage *message;
            while (meter.received < count && (message = dbus_connection_pop_message(connection))) {
                if (dbus_message_get_type(message) == DBUS_MESSAGE_TYPE_ERROR) {
                    fprintf(stderr, "notification_peer: %s\n", dbus_message_get_error_name(message));
                    die("StartNotify failed", NULL);
                }
                if (dbus_message_is_signal(message, "org.freedesktop.DBus.Properties", "PropertiesChanged")) {
                    const char *path = dbus_message_get_path(message);
                    int source = 0;
                    while (source < peripherals && strcmp(path, characteristics[source])) source++;
                    DBusMessageIter iter, changes, entry, variant, bytes;
                    if (source < peripherals && dbus_message_iter_init(message, &iter) && dbus_message_iter_next(&iter)
                        && dbus_message_iter_get_arg_type(&iter) == DBUS_TYPE_ARRAY) {
                        dbus_message_iter_recurse(&iter, &changes);
                        for (; dbus_message_iter_get_arg_type(&changes) == DBUS_TYPE_DICT_ENTRY; dbus_message_iter_next(&changes)) {
                            const char *key;
                            dbus_message_iter_recurse(&changes, &entry);
                            dbus_message_iter_get_basic(&entry, &key);
                            if (strcmp(key, "Value")) continue;
                            dbus_message_iter_next(&entry);
                            dbus_message_iter_recurse(&entry, &variant);
                            if (dbus_message_iter_get_arg_type(&variant) != DBUS_TYPE_ARRAY) continue;
                            dbus_message_iter_recurse(&variant, &bytes);
                            const unsigned char *payload;
                            int length = 0;
                            dbus_message_iter_get_fixed_array(&bytes, &payload, &length);
                            record(source, payload, length);
                        }
                    }
                }
                dbus_message_unref(message);
            }
        }
    } else {
        struct pollfd sockets[MAX_PERIPHERALS];
        for (int index = 0; index < peripherals; index++) {
            DBusMessage *message = method(characteristics[index], "org.bluez.GattCharacteristic1", "AcquireNotify");
            DBusMessageIter iter, options;
            dbus_message_iter_init_append(message, &iter);
            dbus_message_iter_open_container(&iter, DBUS_TYPE_ARRAY, "{sv}", &options);
            dbus_message_iter_close_container(&iter, &options);
            DBusMessage *reply = call(connection, message, 30000);
            int fd = -1;
            uint16_t mtu = 0;
            if (!dbus_message_get_args(reply, &error, DBUS_TYPE_UNIX_FD, &fd, DBUS_TYPE_UINT16, &mtu, DBUS_TYPE_INVALID))
                die("AcquireNotify answered something else", &error);
            dbus_message_unref(reply);
            sockets[index] = (struct pollfd){.fd = fd, .events = POLLIN};
        }
        unsigned char buffer[1024];
        while (meter.received < count) {
            if (poll(sockets, (nfds_t)peripherals, -1) < 0) {
                if (errno == EINTR) continue;
                die("poll failed", NULL);
            }
            for (int index = 0; index < peripherals; index++) {
                if (sockets[index].revents & POLLIN) {
                    for (;;) {
                        ssize_t length = recv(sockets[index].fd, buffer, sizeof buffer, MSG_DONTWAIT);
                        if (length < 0) break;
                        if (length == 0) die("a socket closed", NULL);
                        record(index, buffer, (int)length);
                        if (meter.received >= count) break;
                    }
                } else if (sockets[index].revents & (POLLHUP | POLLERR)) {
                    die("a socket closed", NULL);
                }
            }
        }
    }
    uint64_t cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;

    qsort(meter.latencies, (size_t)meter.latency_count, sizeof(uint64_t), compare);
    double seconds = meter.last > meter.first ? (meter.last - meter.first) / 1e9 : 0;
    printf("{\"client\":\"%s\",\"transport\":\"%s\",\"peripherals\":%d,\"received\":%ld,\"bytes\":%ld,"
           "\"lost\":%ld,\"reordered\":%ld,\"dropped\":0,\"seconds\":%.6f,\"rate\":%.1f,\"cpu_ns\":%llu,"
           "\"cpu_ns_per_notification\":%.1f",
           bus ? "c-libdbus" : "c-socket", bus ? "bus" : "socket", peripherals, meter.received, meter.bytes,
           meter.lost, meter.reordered, seconds, seconds > 0 ? (meter.received - 1) / seconds : 0,
           (unsigned long long)cpu, meter.received ? (double)cpu / meter.received : 0);
    if (meter.latency_count)
        printf(",\"latency_p50_us\":%.3f,\"latency_p99_us\":%.3f,\"latency_max_us\":%.3f", percentile(0.5),
               percentile(0.99), meter.latencies[meter.latency_count - 1] / 1000.0);
    printf("}\n");
    fflush(stdout);
    dbus_connection_close(connection);
    dbus_connection_unref(connection);
    return meter.lost || meter.reordered ? 3 : 0;
}
