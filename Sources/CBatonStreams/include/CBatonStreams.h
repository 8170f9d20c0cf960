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

// An input stream over `base` (a GPollableInputStream) that reads `base` by itself on `context`
// until its first reader comes, and keeps what it read (up to `cap` bytes) for that reader. For
// a stream whose producer does its work only while someone reads it (libnice handles an ICE
// component's packets, its peer's connectivity checks among them, only for a reader): it goes
// on answering the peer between the moment the stream is handed over and its first read.
// The pump ends at the stream's first read or its first source (`g_pollable_input_stream_create_source`:
// a reader that waits takes over as one that reads), at its close, at `cap` bytes held, at the
// base's end or on its error, or at `baton_pumped_input_stream_stop`. Reads take the held bytes
// first; a source is ready at once while bytes are held. Returns a new reference (a
// GInputStream *), or NULL if `base` is not pollable or `cap` is 0.
void *baton_pumped_input_stream_new(void *base, void *context, size_t cap);

// How many bytes the pump read that no reader took yet.
size_t baton_pumped_input_stream_held(void *stream);

// Whether the pump still runs.
int baton_pumped_input_stream_is_pumping(void *stream);

// Ends the pump (what it holds stays for the reader). More than once is harmless.
void baton_pumped_input_stream_stop(void *stream);

#endif
