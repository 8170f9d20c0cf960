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

#endif
