#include "CBatonStreams.h"
#include <gio/gio.h>
#include <string.h>

// A GFilterInputStream that follows D-Bus message framing on its asynchronous reads and fails
// them when a message announces more than the caps allow. See CBatonStreams.h.

typedef struct {
    GFilterInputStream parent_instance;
    gsize max_body;
    gsize max_fields;
    guint8 header[16];   // the current message's fixed header, as far as it has arrived
    gsize header_have;
    guint64 remaining;   // bytes of the current message after its fixed header not yet seen
    GError *failure;     // once set (atomically, on GDBus's worker thread), every later read fails with it
} BatonCappedDBusInputStream;

typedef struct {
    GFilterInputStreamClass parent_class;
} BatonCappedDBusInputStreamClass;

GType baton_capped_dbus_input_stream_get_type(void);
G_DEFINE_TYPE(BatonCappedDBusInputStream, baton_capped_dbus_input_stream, G_TYPE_FILTER_INPUT_STREAM)

static guint32 read_u32(const guint8 *bytes, gboolean little_endian) {
    guint32 value;
    memcpy(&value, bytes, sizeof value);
    return little_endian ? GUINT32_FROM_LE(value) : GUINT32_FROM_BE(value);
}

// Follows the framing through `count` bytes; FALSE (and `failure` set) at a refused header.
static gboolean track(BatonCappedDBusInputStream *self, const guint8 *bytes, gsize count) {
    gsize at = 0;
    while (at < count) {
        if (self->remaining > 0) {
            gsize take = (gsize)MIN(self->remaining, (guint64)(count - at));
            self->remaining -= take;
            at += take;
            continue;
        }
        gsize take = MIN(sizeof self->header - self->header_have, count - at);
        memcpy(self->header + self->header_have, bytes + at, take);
        self->header_have += take;
        at += take;
        if (self->header_have < sizeof self->header) break;
        self->header_have = 0;
        guint8 order = self->header[0];
        if (order != 'l' && order != 'B') {
            g_atomic_pointer_set(&self->failure, g_error_new(G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                                        "a D-Bus message began with byte 0x%02x, not a byte order", order));
            return FALSE;
        }
        guint32 body = read_u32(self->header + 4, order == 'l');
        guint32 fields = read_u32(self->header + 12, order == 'l');
        if (body > self->max_body || fields > self->max_fields) {
            g_atomic_pointer_set(&self->failure, g_error_new(G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
                                        "a D-Bus message announced a body of %u bytes and header fields of %u bytes "
                                        "(limits %" G_GSIZE_FORMAT " and %" G_GSIZE_FORMAT ")",
                                        body, fields, self->max_body, self->max_fields));
            return FALSE;
        }
        // The fields array starts at offset 16 and is padded to 8 bytes; the body follows.
        self->remaining = (((guint64)fields + 7) & ~(guint64)7) + body;
    }
    return TRUE;
}

static void base_read_done(GObject *source, GAsyncResult *result, gpointer user_data) {
    GTask *task = user_data;
    BatonCappedDBusInputStream *self = g_task_get_source_object(task);
    GError *error = NULL;
    gssize count = g_input_stream_read_finish(G_INPUT_STREAM(source), result, &error);
    if (count < 0) {
        g_task_return_error(task, error);
    } else if (!track(self, g_task_get_task_data(task), (gsize)count)) {
        g_task_return_error(task, g_error_copy(self->failure));
    } else {
        g_task_return_int(task, count);
    }
    g_object_unref(task);
}

static void capped_read_async(GInputStream *stream, void *buffer, gsize count, int io_priority,
                              GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data) {
    BatonCappedDBusInputStream *self = (BatonCappedDBusInputStream *)stream;
    GTask *task = g_task_new(stream, cancellable, callback, user_data);
    g_task_set_source_tag(task, capped_read_async);
    if (self->failure != NULL) {
        g_task_return_error(task, g_error_copy(self->failure));
        g_object_unref(task);
        return;
    }
    g_task_set_task_data(task, buffer, NULL);
    g_input_stream_read_async(g_filter_input_stream_get_base_stream(G_FILTER_INPUT_STREAM(stream)), buffer, count,
                              io_priority, cancellable, base_read_done, task);
}

static gssize capped_read_finish(GInputStream *stream, GAsyncResult *result, GError **error) {
    g_return_val_if_fail(g_task_is_valid(result, stream), -1);
    return g_task_propagate_int(G_TASK(result), error);
}

static void baton_capped_dbus_input_stream_finalize(GObject *object) {
    BatonCappedDBusInputStream *self = (BatonCappedDBusInputStream *)object;
    g_clear_error(&self->failure);
    G_OBJECT_CLASS(baton_capped_dbus_input_stream_parent_class)->finalize(object);
}

static void baton_capped_dbus_input_stream_class_init(BatonCappedDBusInputStreamClass *klass) {
    G_OBJECT_CLASS(klass)->finalize = baton_capped_dbus_input_stream_finalize;
    G_INPUT_STREAM_CLASS(klass)->read_async = capped_read_async;
    G_INPUT_STREAM_CLASS(klass)->read_finish = capped_read_finish;
}

static void baton_capped_dbus_input_stream_init(BatonCappedDBusInputStream *self) {
    (void)self;
}

void *baton_dbus_capped_stream_new(void *base_stream, size_t max_body, size_t max_fields) {
    GIOStream *base = G_IO_STREAM(base_stream);
    BatonCappedDBusInputStream *input = g_object_new(baton_capped_dbus_input_stream_get_type(),
                                                     "base-stream", g_io_stream_get_input_stream(base),
                                                     "close-base-stream", TRUE, NULL);
    input->max_body = max_body;
    input->max_fields = max_fields;
    GIOStream *stream = g_simple_io_stream_new(G_INPUT_STREAM(input), g_io_stream_get_output_stream(base));
    g_object_unref(input);
    // The TLS connection's own streams hold it only weakly: keep it alive with the wrapper.
    g_object_set_data_full(G_OBJECT(stream), "baton-base-stream", g_object_ref(base), g_object_unref);
    return stream;
}

void *baton_tls_base_socket(void *tls) {
    if (!G_IS_TLS_CONNECTION(tls)) return NULL;
    GIOStream *base = NULL;
    g_object_get(tls, "base-io-stream", &base, NULL);
    if (base == NULL) return NULL;
    GSocket *socket = G_IS_SOCKET_CONNECTION(base) ? g_socket_connection_get_socket(G_SOCKET_CONNECTION(base)) : NULL;
    g_object_unref(base);
    return socket;
}

const char *baton_dbus_capped_stream_refusal(void *stream) {
    if (!G_IS_IO_STREAM(stream)) return NULL;
    GInputStream *input = g_io_stream_get_input_stream(G_IO_STREAM(stream));
    if (!G_TYPE_CHECK_INSTANCE_TYPE(input, baton_capped_dbus_input_stream_get_type())) return NULL;
    GError *failure = g_atomic_pointer_get(&((BatonCappedDBusInputStream *)input)->failure);
    return failure != NULL ? failure->message : NULL;
}
