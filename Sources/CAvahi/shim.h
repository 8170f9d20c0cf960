// Avahi's client library (DNS-SD through the system's avahi-daemon) and its GLib poll adapter.
#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-client/publish.h>
#include <avahi-common/address.h>
#include <avahi-common/error.h>
#include <avahi-common/strlst.h>
#include <avahi-common/watch.h>

// From <avahi-glib/glib-watch.h> (libavahi-glib-dev), declared here so that this module needs
// no GLib include path and no pkg-config flags; `context` is a GMainContext*, NULL for the
// default context.
typedef struct AvahiGLibPoll AvahiGLibPoll;
AvahiGLibPoll *avahi_glib_poll_new(void *context, int priority);
void avahi_glib_poll_free(AvahiGLibPoll *g);
const AvahiPoll *avahi_glib_poll_get(AvahiGLibPoll *g);
