// libsoup 3 (HTTP on GIO and the GLib main loop), for fetching associated-domain files.
#include <libsoup/soup.h>
