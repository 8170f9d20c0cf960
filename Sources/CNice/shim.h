#ifndef BATON_CNICE_SHIM_H
#define BATON_CNICE_SHIM_H

// libnice (ICE, RFC 5245) on GLib, for links beyond one network, and the few helpers Swift
// needs around it: GObject's variadic property setter, NiceAddress and NiceCandidate handling.
#include <nice/agent.h>
#include <string.h>
#include <gio/gio.h>

// A reliable (pseudo-TCP) agent in RFC 5245 mode on `context`: UDP candidates only (no ICE-TCP,
// no UPnP port mapping). Its keepalives are binding requests, not indications
// ("keepalive-conncheck"): one left unanswered while nothing else came fails the component, so
// a peer that vanished (no FIN) ends the stream in bounded time.
static inline NiceAgent *baton_nice_agent_new(GMainContext *context) {
    NiceAgent *agent = nice_agent_new_reliable(context, NICE_COMPATIBILITY_RFC5245);
    if (agent != NULL) g_object_set(agent, "ice-tcp", FALSE, "upnp", FALSE, "keepalive-conncheck", TRUE, NULL);
    return agent;
}

static inline void baton_nice_set_controlling(NiceAgent *agent, gboolean controlling) {
    g_object_set(agent, "controlling-mode", controlling, NULL);
}

// Only relayed candidates are gathered and paired (libnice's "force-relay").
static inline void baton_nice_set_force_relay(NiceAgent *agent, gboolean force) {
    g_object_set(agent, "force-relay", force, NULL);
}

static inline void baton_nice_set_stun_server(NiceAgent *agent, const char *ip, guint port) {
    g_object_set(agent, "stun-server", ip, "stun-server-port", port, NULL);
}

// Gathers host candidates on `ip` only (instead of every interface but loopback). FALSE if
// `ip` is not an IP address.
static inline gboolean baton_nice_add_local_address(NiceAgent *agent, const char *ip) {
    NiceAddress address;
    nice_address_init(&address);
    if (!nice_address_set_from_string(&address, ip)) return FALSE;
    return nice_agent_add_local_address(agent, &address);
}

static inline int baton_nice_candidate_type(const NiceCandidate *candidate) {
    return candidate == NULL ? -1 : (int)candidate->type;
}

// The local candidates of component 1 of `stream` as SDP attribute lines ("a=candidate:…"),
// NULL-terminated; free with g_strfreev.
static inline gchar **baton_nice_local_candidate_lines(NiceAgent *agent, guint stream) {
    GSList *candidates = nice_agent_get_local_candidates(agent, stream, 1);
    guint count = g_slist_length(candidates), index = 0;
    gchar **lines = g_new0(gchar *, count + 1);
    for (GSList *item = candidates; item != NULL; item = item->next) {
        NiceCandidate *candidate = item->data;
        gchar *line = nice_agent_generate_local_candidate_sdp(agent, candidate);
        if (line != NULL) lines[index++] = line;
    }
    g_slist_free_full(candidates, (GDestroyNotify)nice_candidate_free);
    return lines;
}

// Sets the peer's credentials and candidates (SDP attribute lines, already checked) on component
// 1 of `stream`. Returns how many candidates libnice took, or -1 if one did not parse or the
// credentials were refused.
static inline int baton_nice_set_remote(NiceAgent *agent, guint stream, const char *ufrag, const char *pwd,
                                        const char *const *lines, int count) {
    if (!nice_agent_set_remote_credentials(agent, stream, ufrag, pwd)) return -1;
    GSList *candidates = NULL;
    for (int index = 0; index < count; index++) {
        NiceCandidate *candidate = nice_agent_parse_remote_candidate_sdp(agent, stream, lines[index]);
        if (candidate == NULL || candidate->component_id != 1) {
            if (candidate != NULL) nice_candidate_free(candidate);
            g_slist_free_full(candidates, (GDestroyNotify)nice_candidate_free);
            return -1;
        }
        candidates = g_slist_prepend(candidates, candidate);
    }
    int added = nice_agent_set_remote_candidates(agent, stream, 1, candidates);
    g_slist_free_full(candidates, (GDestroyNotify)nice_candidate_free);
    return added;
}

// libnice handles a component's packets (STUN, TURN, pseudo-TCP) only while someone receives on
// it (nice_agent_recv* or the GIOStream) or an I/O callback is attached; a reliable agent's I/O
// callback would take the link's bytes. So until a pair is selected, a "pump" on the app's
// context reads nonblocking from the component whenever one of its sockets is readable: no
// application byte can arrive before (pseudo-TCP packets wait for a selected pair), so each read
// only moves gathering and the checks on. A byte that does arrive sets *stray and ends the pump.
static gboolean baton_nice_pump_read(GObject *input, gpointer stray) {
    guint8 byte;
    GError *error = NULL;
    gssize count = g_pollable_input_stream_read_nonblocking(G_POLLABLE_INPUT_STREAM(input), &byte, 1, NULL, &error);
    if (count > 0) { *(gint *)stray = 1; return G_SOURCE_REMOVE; }
    if (count == 0) return G_SOURCE_REMOVE;
    gboolean wouldBlock = g_error_matches(error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK);
    g_error_free(error);
    return wouldBlock ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

// Starts the pump on `context` for `stream`'s input; destroy and unref the source to stop it,
// before `stray` goes.
static inline GSource *baton_nice_pump_start(GIOStream *stream, GMainContext *context, gint *stray) {
    GSource *source = g_pollable_input_stream_create_source(
        G_POLLABLE_INPUT_STREAM(g_io_stream_get_input_stream(stream)), NULL);
    g_source_set_callback(source, (GSourceFunc)(void (*)(void))baton_nice_pump_read, stray, NULL);
    g_source_attach(source, context);
    return source;
}

#endif
