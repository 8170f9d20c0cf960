#include "CBatonStreams.h"
#include <gio/gio.h>

// A GAppLaunchContext that hands one activation token to the app it launches. See
// CBatonStreams.h.

typedef struct {
    GAppLaunchContext parent_instance;
    char *token;
} BatonAppLaunchContext;

typedef struct {
    GAppLaunchContextClass parent_class;
} BatonAppLaunchContextClass;

GType baton_app_launch_context_get_type(void);
G_DEFINE_TYPE(BatonAppLaunchContext, baton_app_launch_context, G_TYPE_APP_LAUNCH_CONTEXT)

static char *get_startup_notify_id(GAppLaunchContext *context, GAppInfo *info, GList *files) {
    (void)info;
    (void)files;
    BatonAppLaunchContext *self = (BatonAppLaunchContext *)context;
    return g_strdup(self->token);
}

static void finalize(GObject *object) {
    BatonAppLaunchContext *self = (BatonAppLaunchContext *)object;
    g_free(self->token);
    G_OBJECT_CLASS(baton_app_launch_context_parent_class)->finalize(object);
}

static void baton_app_launch_context_class_init(BatonAppLaunchContextClass *klass) {
    G_OBJECT_CLASS(klass)->finalize = finalize;
    G_APP_LAUNCH_CONTEXT_CLASS(klass)->get_startup_notify_id = get_startup_notify_id;
}

static void baton_app_launch_context_init(BatonAppLaunchContext *self) {
    self->token = NULL;
}

void *baton_app_launch_context_new(const char *token) {
    BatonAppLaunchContext *self = g_object_new(baton_app_launch_context_get_type(), NULL);
    self->token = g_strdup(token);
    return self;
}
