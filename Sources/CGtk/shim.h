#ifndef BATON_CGTK_SHIM_H
#define BATON_CGTK_SHIM_H

// GTK 4, for BatonGtk. Swift imports GTK's functions and types; what it cannot import (cast
// macros, type-check macros, variadic calls) is given here as small inline functions.
#include <gtk/gtk.h>

// GTK_WINDOW(), GTK_WIDGET() and friends are macros; these are the casts, unchecked (the
// callers hold pointers of the right type, which GTK checks again on each call).
static inline GtkWidget *baton_gtk_widget(void *object) { return (GtkWidget *)object; }
static inline GtkWindow *baton_gtk_window(void *object) { return (GtkWindow *)object; }
static inline GObject *baton_gobject(void *object) { return (GObject *)object; }

// GTK_IS_WINDOW() / GTK_IS_APPLICATION_WINDOW() / GTK_IS_TEXT_VIEW(), as functions.
static inline gboolean baton_gtk_is_window(void *object) {
    return object != NULL && G_TYPE_CHECK_INSTANCE_TYPE(object, GTK_TYPE_WINDOW);
}
static inline gboolean baton_gtk_is_application_window(void *object) {
    return object != NULL && G_TYPE_CHECK_INSTANCE_TYPE(object, GTK_TYPE_APPLICATION_WINDOW);
}

// g_signal_connect is a macro over g_signal_connect_data; this is it for a handler whose box
// is released by `notify` when the handler is disconnected or its object finalised.
static inline gulong baton_gtk_connect(void *instance, const char *signal, GCallback handler,
                                       void *data, GClosureNotify notify) {
    return g_signal_connect_data(instance, signal, handler, data, notify, (GConnectFlags)0);
}

// GtkShortcutController's "scope" and propagation phase, set on a new controller.
static inline GtkEventController *baton_gtk_shortcut_controller_new(GtkPropagationPhase phase) {
    GtkEventController *controller = gtk_shortcut_controller_new();
    gtk_event_controller_set_propagation_phase(controller, phase);
    return controller;
}

#endif
