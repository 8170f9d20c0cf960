#include "CBatonStreams.h"
#include <gio/gio.h>
#include <string.h>

// An input stream that reads its pollable base by itself, on a GMainContext, until its first
// reader comes, and keeps what it read for that reader. See CBatonStreams.h.
//
// Locking: `lock` guards `held`, `pump` and `taken`. The pump holds it across its nonblocking
// read of the base, so a reader on another thread (GIO's TLS handshake runs in a worker thread)
// waits for that read to end before it takes over: the base is never read by two at once
// (libnice asserts that its component has one reader). A reader reads the base without it. It
// is recursive: the base's read may call back into this thread (libnice emits its signals as
// the read ends), and a handler may stop or close the stream there.

typedef struct {
    GInputStream parent;
    GInputStream *base;  // owned; a GPollableInputStream
    GRecMutex lock;
    GByteArray *held;    // read by the pump, not yet taken
    gsize cap;
    GSource *pump;       // owned; NULL once the pump is over
    gboolean taken;      // a reader came, or the stream was stopped or closed
} BatonPumpedInputStream;

typedef struct {
    GInputStreamClass parent_class;
} BatonPumpedInputStreamClass;

static void baton_pumped_input_stream_pollable_init(GPollableInputStreamInterface *iface);

G_DEFINE_TYPE_WITH_CODE(BatonPumpedInputStream, baton_pumped_input_stream, G_TYPE_INPUT_STREAM,
                        G_IMPLEMENT_INTERFACE(G_TYPE_POLLABLE_INPUT_STREAM, baton_pumped_input_stream_pollable_init))

#define PUMPED(object) ((BatonPumpedInputStream *)(object))

// Ends the pump (its source destroyed, even from inside its own dispatch). Under `lock`.
static void stop_pump_locked(BatonPumpedInputStream *self) {
    self->taken = TRUE;
    if (self->pump == NULL) return;
    g_source_destroy(self->pump);
    g_source_unref(self->pump);
    self->pump = NULL;
}

// Moves up to `count` held bytes to `buffer`. Under `lock`.
static gsize take_held_locked(BatonPumpedInputStream *self, void *buffer, gsize count) {
    gsize taken = MIN(count, (gsize)self->held->len);
    if (taken == 0) return 0;
    memcpy(buffer, self->held->data, taken);
    g_byte_array_remove_range(self->held, 0, (guint)taken);
    return taken;
}

// The pump's source data: the stream, weakly (the stream owns the source; its dispose ends it).
typedef struct {
    GWeakRef stream;
} PumpData;

static void pump_data_free(gpointer data) {
    PumpData *pump = data;
    g_weak_ref_clear(&pump->stream);
    g_free(pump);
}

// One wake-up of the pump: a nonblocking read of the base, which lets the base do its own work
// (libnice handles the packets that came) and keeps any byte it gives. The pump ends at the end
// of the base, on an error, or when `cap` bytes are held.
static gboolean pump_read(GObject *base, gpointer data) {
    (void)base;
    BatonPumpedInputStream *self = g_weak_ref_get(&((PumpData *)data)->stream);
    if (self == NULL) return G_SOURCE_REMOVE;
    gboolean again = FALSE;
    g_rec_mutex_lock(&self->lock);
    if (!self->taken && self->held->len < self->cap) {
        guint8 buffer[4096];
        gsize room = MIN(sizeof buffer, self->cap - self->held->len);
        GError *error = NULL;
        gssize count = g_pollable_input_stream_read_nonblocking(G_POLLABLE_INPUT_STREAM(self->base), buffer, room, NULL, &error);
        if (count > 0) {
            g_byte_array_append(self->held, buffer, (guint)count);
            again = self->held->len < self->cap;
        } else if (count < 0) {
            again = g_error_matches(error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK);
        }
        // The end, or another error: the reader meets it on the base in its turn.
        g_clear_error(&error);
    }
    if (!again && self->pump != NULL) {
        g_source_unref(self->pump);  // the dispatch holds its own reference; returning REMOVE destroys it
        self->pump = NULL;
    }
    g_rec_mutex_unlock(&self->lock);
    g_object_unref(self);
    return again ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

// A reader came: the pump ends, and the reader takes the held bytes first. Returns how many it
// took; with none, the reader reads the base.
static gsize take_over(BatonPumpedInputStream *self, void *buffer, gsize count) {
    g_rec_mutex_lock(&self->lock);
    stop_pump_locked(self);
    gsize taken = take_held_locked(self, buffer, count);
    g_rec_mutex_unlock(&self->lock);
    return taken;
}

static gssize baton_pumped_input_stream_read(GInputStream *stream, void *buffer, gsize count, GCancellable *cancellable,
                                             GError **error) {
    BatonPumpedInputStream *self = PUMPED(stream);
    gsize taken = take_over(self, buffer, count);
    if (taken > 0 || count == 0) return (gssize)taken;
    return g_input_stream_read(self->base, buffer, count, cancellable, error);
}

static gssize baton_pumped_input_stream_read_nonblocking(GPollableInputStream *stream, void *buffer, gsize count,
                                                         GError **error) {
    BatonPumpedInputStream *self = PUMPED(stream);
    gsize taken = take_over(self, buffer, count);
    if (taken > 0 || count == 0) return (gssize)taken;
    return g_pollable_input_stream_read_nonblocking(G_POLLABLE_INPUT_STREAM(self->base), buffer, count, NULL, error);
}

static gboolean baton_pumped_input_stream_is_readable(GPollableInputStream *stream) {
    BatonPumpedInputStream *self = PUMPED(stream);
    g_rec_mutex_lock(&self->lock);
    gboolean holding = self->held->len > 0;
    g_rec_mutex_unlock(&self->lock);
    return holding || g_pollable_input_stream_is_readable(G_POLLABLE_INPUT_STREAM(self->base));
}

// A reader that waits on the stream takes over as a read does (else the pump could take the
// bytes its source waits for): it is ready at once while bytes are held, else when the base is.
static GSource *baton_pumped_input_stream_create_source(GPollableInputStream *stream, GCancellable *cancellable) {
    BatonPumpedInputStream *self = PUMPED(stream);
    g_rec_mutex_lock(&self->lock);
    stop_pump_locked(self);
    gboolean holding = self->held->len > 0;
    g_rec_mutex_unlock(&self->lock);
    GSource *child = holding ? g_timeout_source_new(0)
                             : g_pollable_input_stream_create_source(G_POLLABLE_INPUT_STREAM(self->base), NULL);
    GSource *source = g_pollable_source_new_full(stream, child, cancellable);
    g_source_unref(child);
    return source;
}

static gboolean baton_pumped_input_stream_can_poll(GPollableInputStream *stream) {
    return g_pollable_input_stream_can_poll(G_POLLABLE_INPUT_STREAM(PUMPED(stream)->base));
}

static gboolean baton_pumped_input_stream_close(GInputStream *stream, GCancellable *cancellable, GError **error) {
    BatonPumpedInputStream *self = PUMPED(stream);
    g_rec_mutex_lock(&self->lock);
    stop_pump_locked(self);
    g_byte_array_set_size(self->held, 0);
    g_rec_mutex_unlock(&self->lock);
    return g_input_stream_close(self->base, cancellable, error);
}

static void baton_pumped_input_stream_dispose(GObject *object) {
    BatonPumpedInputStream *self = PUMPED(object);
    g_rec_mutex_lock(&self->lock);
    stop_pump_locked(self);
    g_rec_mutex_unlock(&self->lock);
    G_OBJECT_CLASS(baton_pumped_input_stream_parent_class)->dispose(object);
}

static void baton_pumped_input_stream_finalize(GObject *object) {
    BatonPumpedInputStream *self = PUMPED(object);
    g_byte_array_unref(self->held);
    g_object_unref(self->base);
    g_rec_mutex_clear(&self->lock);
    G_OBJECT_CLASS(baton_pumped_input_stream_parent_class)->finalize(object);
}

static void baton_pumped_input_stream_init(BatonPumpedInputStream *self) {
    g_rec_mutex_init(&self->lock);
    self->held = g_byte_array_new();
}

static void baton_pumped_input_stream_class_init(BatonPumpedInputStreamClass *klass) {
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GInputStreamClass *stream_class = G_INPUT_STREAM_CLASS(klass);
    object_class->dispose = baton_pumped_input_stream_dispose;
    object_class->finalize = baton_pumped_input_stream_finalize;
    stream_class->read_fn = baton_pumped_input_stream_read;
    stream_class->close_fn = baton_pumped_input_stream_close;
}

static void baton_pumped_input_stream_pollable_init(GPollableInputStreamInterface *iface) {
    iface->can_poll = baton_pumped_input_stream_can_poll;
    iface->is_readable = baton_pumped_input_stream_is_readable;
    iface->create_source = baton_pumped_input_stream_create_source;
    iface->read_nonblocking = baton_pumped_input_stream_read_nonblocking;
}

void *baton_pumped_input_stream_new(void *base, void *context, size_t cap) {
    if (!G_IS_POLLABLE_INPUT_STREAM(base) || cap == 0) return NULL;
    BatonPumpedInputStream *self = g_object_new(baton_pumped_input_stream_get_type(), NULL);
    self->base = g_object_ref(base);
    self->cap = cap;
    PumpData *data = g_new0(PumpData, 1);
    g_weak_ref_init(&data->stream, self);
    GSource *pump = g_pollable_input_stream_create_source(G_POLLABLE_INPUT_STREAM(base), NULL);
    g_source_set_callback(pump, (GSourceFunc)(void (*)(void))pump_read, data, pump_data_free);
    self->pump = pump;  // the stream's reference; the context takes its own
    g_source_attach(pump, context);
    return self;
}

size_t baton_pumped_input_stream_held(void *stream) {
    BatonPumpedInputStream *self = PUMPED(stream);
    g_rec_mutex_lock(&self->lock);
    size_t held = self->held->len;
    g_rec_mutex_unlock(&self->lock);
    return held;
}

int baton_pumped_input_stream_is_pumping(void *stream) {
    BatonPumpedInputStream *self = PUMPED(stream);
    g_rec_mutex_lock(&self->lock);
    int pumping = self->pump != NULL;
    g_rec_mutex_unlock(&self->lock);
    return pumping;
}

void baton_pumped_input_stream_stop(void *stream) {
    BatonPumpedInputStream *self = PUMPED(stream);
    g_rec_mutex_lock(&self->lock);
    stop_pump_locked(self);
    g_rec_mutex_unlock(&self->lock);
}
