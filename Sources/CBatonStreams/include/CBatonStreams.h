#ifndef BATON_STREAMS_H
#define BATON_STREAMS_H

#include <stddef.h>

// The GLib types are passed as untyped pointers so that this header does not include GLib's:
// Swift sees GLib through the CGLib module only. `base` and the results are GIOStream *, the
// socket a GSocket *.

// A GIOStream for GDBus over `base`: writes go to base's output stream unchanged; reads come
// from base's input stream through a filter that follows the D-Bus message framing.
//
// The filter looks only at the bytes returned by asynchronous reads: GDBus authenticates with
// synchronous line reads, and its worker then reads messages asynchronously (first the 16-byte
// fixed header, then the rest). From each message's fixed header (byte 0 'l' or 'B' for the
// byte order, bytes 4-7 the body length, bytes 12-15 the length of the header-fields array) it
// knows where the message ends. A header that announces a body over `max_body` bytes or header
// fields over `max_fields` bytes, or that is not a D-Bus header, fails that read, and every
// later one, with G_IO_ERROR_MESSAGE_TOO_LARGE (or G_IO_ERROR_INVALID_DATA): GDBus then closes
// the connection, before it has allocated or read any of the body.
//
// The returned stream holds a reference to `base`. Returns a new reference.
void *baton_dbus_capped_stream_new(void *base, size_t max_body, size_t max_fields);

// Why the stream made by baton_dbus_capped_stream_new refused the peer's messages, or NULL.
// Valid while the stream lives.
const char *baton_dbus_capped_stream_refusal(void *stream);

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
