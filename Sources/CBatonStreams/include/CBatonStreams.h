#ifndef BATON_STREAMS_H
#define BATON_STREAMS_H

#include <stddef.h>

// The GLib types are passed as untyped pointers so that this header does not include GLib's:
// Swift sees GLib through the CGLib module only.

// The GSocket under a GTlsConnection over a GSocketConnection, or NULL. Borrowed: the TLS
// connection holds it.
void *baton_tls_base_socket(void *tls);

// A GAppLaunchContext whose startup-notify id is `token` (may be NULL: none), so GIO passes it
// to the app it launches: as DESKTOP_STARTUP_ID for an Exec= launch and as the platform data's
// "desktop-startup-id" for a D-Bus activation (GLib 2.76 and later also as XDG_ACTIVATION_TOKEN
// and "activation-token"). GIO asks for it only when the desktop entry says StartupNotify=true.
// Returns a new reference (a GAppLaunchContext *).
void *baton_app_launch_context_new(const char *token);

#endif
