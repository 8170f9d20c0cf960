#include "CBatonStreams.h"
#include <gio/gio.h>

// The GSocket under a GTlsConnection over a GSocketConnection. See CBatonStreams.h.
void *baton_tls_base_socket(void *tls) {
    if (!G_IS_TLS_CONNECTION(tls)) return NULL;
    GIOStream *base = NULL;
    g_object_get(tls, "base-io-stream", &base, NULL);
    if (base == NULL) return NULL;
    GSocket *socket = G_IS_SOCKET_CONNECTION(base) ? g_socket_connection_get_socket(G_SOCKET_CONNECTION(base)) : NULL;
    g_object_unref(base);
    return socket;
}
