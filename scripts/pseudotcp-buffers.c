/* Issue 29, relayed stream speed: why larger libnice pseudo-TCP buffers stalled links (an experiment,
 * not part of the build). Two reliable NiceAgents (libnice 0.1.21) on 127.0.0.1, host path, one GLib
 * loop; 20 MiB from A to B over their GIOStreams, read as fast as it comes. The buffers are set on
 * every PseudoTcpSocket as it is constructed (a hook on the class's `constructed`: before its SYN,
 * so the window scale it advertises matches, and the same on both sides).
 *
 *   cc -O2 -o /tmp/pseudotcp-buffers scripts/pseudotcp-buffers.c $(pkg-config --cflags --libs nice gio-2.0)
 *   unshare -n sh -c 'ip link set lo up; /tmp/pseudotcp-buffers RCVBUF SNDBUF; grep ^Udp: /proc/net/snmp'
 *   (0 = libnice's default: 60 KiB receive, 90 KiB send; T=seconds to give up, default 120)
 *
 * Found (2026-11-29, shared 2-core machine; see the relay29 report):
 *   default/default            20 MiB in 0.24-0.42 s (49-88 MB/s)
 *   1 MiB receive, default send 0.17-0.32 s; default receive, 1 MiB send: 0.30 s   (in flight <= the send buffer)
 *   128 KiB / 128 KiB           9.1 s with 2.3 s pauses, or no progress after ~415 KB (dead), 9 UDP RcvbufErrors
 *   1 MiB / 1 MiB               no progress after ~500 KB in 60 s, 47 UDP RcvbufErrors
 * With both buffers larger, up to a whole window is in flight: a burst of ~100-750 datagrams into the
 * receiving UDP socket, whose buffer libnice leaves at net.core.rmem_default (208 KiB of skb truesize,
 * ~90 datagrams of 1.3 KB on loopback): the tail is dropped, and libjingle's pseudo-TCP (no SACK,
 * RTO >= 1 s doubling to 60 s; a zero window with nothing received for 15 s aborts) does not get
 * back up. So a larger window needs the UDP socket's SO_RCVBUF raised to hold it, which libnice
 * gives no API for in reliable mode (nice_agent_get_selected_socket returns NULL there), and through
 * TURN the relay's sockets too. */
#include <nice/agent.h>
#include <nice/pseudotcp.h>
#include <gio/gio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOTAL (20u * 1024 * 1024)
static guint rcv, snd;
static void (*original)(GObject *);
static void constructed(GObject *o) {
  if (original) original(o);
  if (rcv) g_object_set(o, "rcv-buf", rcv, NULL);
  if (snd) g_object_set(o, "snd-buf", snd, NULL);
}
static NiceAgent *agent[2];
static guint sid[2];
static int gathered, ready;
static GMainLoop *loop;
static gsize sent, got;
static gint64 start, lastProgress, maxGap;
static GIOStream *io[2];
static char chunk[65536];

static gboolean writeMore(GObject *s, gpointer d) {
  GPollableOutputStream *out = G_POLLABLE_OUTPUT_STREAM(g_io_stream_get_output_stream(io[0]));
  while (sent < TOTAL) {
    GError *e = NULL;
    gssize n = g_pollable_output_stream_write_nonblocking(out, chunk, MIN(sizeof chunk, TOTAL - sent), NULL, &e);
    if (n < 0) {
      if (g_error_matches(e, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK)) { g_error_free(e); return G_SOURCE_CONTINUE; }
      printf("write error: %s\n", e->message); g_main_loop_quit(loop); return G_SOURCE_REMOVE;
    }
    sent += n;
  }
  return G_SOURCE_REMOVE;
}
static gboolean readMore(GObject *s, gpointer d) {
  static char buf[262144];
  GPollableInputStream *in = G_POLLABLE_INPUT_STREAM(g_io_stream_get_input_stream(io[1]));
  for (;;) {
    GError *e = NULL;
    gssize n = g_pollable_input_stream_read_nonblocking(in, buf, sizeof buf, NULL, &e);
    gint64 now = g_get_monotonic_time();
    if (n < 0) {
      if (g_error_matches(e, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK)) { g_error_free(e); return G_SOURCE_CONTINUE; }
      printf("read error: %s after %zu bytes\n", e->message, got); g_main_loop_quit(loop); return G_SOURCE_REMOVE;
    }
    if (n == 0) { printf("EOF after %zu\n", got); g_main_loop_quit(loop); return G_SOURCE_REMOVE; }
    got += n;
    if (lastProgress && now - lastProgress > maxGap) maxGap = now - lastProgress;
    lastProgress = now;
    if (got >= TOTAL) {
      printf("rcv-buf %u snd-buf %u: 20 MiB in %.2f s (%.1f MB/s), longest pause %.0f ms\n", rcv, snd,
             (now - start) / 1e6, TOTAL / ((now - start) / 1e6) / 1e6, maxGap / 1e3);
      g_main_loop_quit(loop);
      return G_SOURCE_REMOVE;
    }
  }
}
static void exchange(void) {
  for (int i = 0; i < 2; i++) {
    int j = 1 - i;
    gchar *ufrag, *pwd;
    nice_agent_get_local_credentials(agent[i], sid[i], &ufrag, &pwd);
    nice_agent_set_remote_credentials(agent[j], sid[j], ufrag, pwd);
    g_free(ufrag); g_free(pwd);
    GSList *c = nice_agent_get_local_candidates(agent[i], sid[i], 1);
    nice_agent_set_remote_candidates(agent[j], sid[j], 1, c);
    g_slist_free_full(c, (GDestroyNotify) nice_candidate_free);
  }
}
static void done(NiceAgent *a, guint s, gpointer d) { if (++gathered == 2) exchange(); }
static void state(NiceAgent *a, guint s, guint c, guint st, gpointer d) {
  if (getenv("V")) printf("state %u\n", st);
  if (st != NICE_COMPONENT_STATE_READY || ++ready != 2) return;
  start = g_get_monotonic_time();
  GSource *w = g_pollable_output_stream_create_source(G_POLLABLE_OUTPUT_STREAM(g_io_stream_get_output_stream(io[0])), NULL);
  g_source_set_callback(w, (GSourceFunc) writeMore, NULL, NULL);
  g_source_attach(w, NULL);
}
static gboolean drainA(GObject *s, gpointer d) {
  char b[4096]; GError *e = NULL;
  gssize n = g_pollable_input_stream_read_nonblocking(G_POLLABLE_INPUT_STREAM(g_io_stream_get_input_stream(io[0])), b, sizeof b, NULL, &e);
  if (e) g_error_free(e);
  return n == 0 ? G_SOURCE_REMOVE : G_SOURCE_CONTINUE;
}
static gboolean giveUp(gpointer d) { printf("gave up: %zu of %u bytes read\n", got, TOTAL); g_main_loop_quit(loop); return G_SOURCE_REMOVE; }
int main(int argc, char **argv) {
  rcv = argc > 1 ? atoi(argv[1]) : 0; snd = argc > 2 ? atoi(argv[2]) : 0;
  GObjectClass *k = g_type_class_ref(pseudo_tcp_socket_get_type());
  original = k->constructed; k->constructed = constructed;
  loop = g_main_loop_new(NULL, FALSE);
  for (int i = 0; i < 2; i++) {
    agent[i] = nice_agent_new_reliable(g_main_context_default(), NICE_COMPATIBILITY_RFC5245);
    g_object_set(agent[i], "controlling-mode", i == 0, "ice-tcp", FALSE, "upnp", FALSE, NULL);
    NiceAddress addr; nice_address_init(&addr); nice_address_set_from_string(&addr, "127.0.0.1");
    nice_agent_add_local_address(agent[i], &addr);
    g_signal_connect(agent[i], "candidate-gathering-done", G_CALLBACK(done), NULL);
    g_signal_connect(agent[i], "component-state-changed", G_CALLBACK(state), NULL);
    sid[i] = nice_agent_add_stream(agent[i], 1);
    io[i] = nice_agent_get_io_stream(agent[i], sid[i], 1);
    GSource *r = g_pollable_input_stream_create_source(G_POLLABLE_INPUT_STREAM(g_io_stream_get_input_stream(io[i])), NULL);
    g_source_set_callback(r, (GSourceFunc) (i ? readMore : drainA), NULL, NULL);
    g_source_attach(r, NULL);

  }
  for (int i = 0; i < 2; i++) nice_agent_gather_candidates(agent[i], sid[i]);
  g_timeout_add_seconds(getenv("T") ? atoi(getenv("T")) : 120, giveUp, NULL);
  g_main_loop_run(loop);
  return 0;
}
