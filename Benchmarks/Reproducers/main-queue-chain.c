// Why a DispatchQueue.main.async chain run by a GLib loop cannot come within 2x of the same
// chain under dispatch_main() (issue 30): a chain of main-queue blocks, each queuing the next,
// run by dispatch_main(), or by a GLib fd source on libdispatch's main-queue eventfd that drains
// it as Baton's MainQueueBridge does (`rounds` drains per wake-up, then a read, then one more).
//
//   clang -O2 -o /tmp/main-queue-chain Benchmarks/Reproducers/main-queue-chain.c \
//     -I/opt/swift/usr/lib/swift $(pkg-config --cflags --libs glib-2.0) \
//     -L/opt/swift/usr/lib/swift/linux -ldispatch -lBlocksRuntime -Wl,-rpath,/opt/swift/usr/lib/swift/linux
//   /tmp/main-queue-chain dm          # dispatch_main()
//   /tmp/main-queue-chain glib 64     # the GLib bridge, 64 drains per wake-up
//   /tmp/main-queue-chain efd         # one eventfd write; an empty drain
//   strace -c -f /tmp/main-queue-chain glib    # the writes: two per block
//
// 2026-11-28, 2 loaded cores: dispatch_main() 48-102 ns per block; the GLib bridge 0.15 us of
// user and 0.48 us of system CPU per block; strace counted 6,352,946 writes for 3,000,000 blocks
// (libdispatch writes the eventfd when a block is queued onto the queue a drain emptied, and at
// the end of a drain that leaves blocks queued), one eventfd write 0.3-1.2 us.
#include <dispatch/dispatch.h>
#include <glib.h>
#include <glib-unix.h>
#include <sys/eventfd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *);
static long N = 3000000, remaining;
static GMainLoop *loop;
static int rounds = 16;
static long wakes = 0;
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e9 + t.tv_nsec; }
static double start;
static void step(void *ctx) {
  if (--remaining > 0) { dispatch_async_f(dispatch_get_main_queue(), NULL, step); return; }
  double ns = (now() - start) / N;
  printf("%s: %.1f ns/block (wakes %ld)\n", (char *)ctx ? (char*)ctx : "chain", ns, wakes);
  if (loop) g_main_loop_quit(loop); else exit(0);
}
static void first(void *ctx) { remaining = N; start = now(); dispatch_async_f(dispatch_get_main_queue(), ctx, step); }
static gboolean ready(gint fd, GIOCondition c, gpointer d) {
  wakes++;
  for (int i = 0; i < rounds; i++) _dispatch_main_queue_callback_4CF(NULL);
  uint64_t v; read(fd, &v, 8);
  _dispatch_main_queue_callback_4CF(NULL);
  return TRUE;
}
int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "dm";
  if (argc > 2) rounds = atoi(argv[2]);
  if (!strcmp(mode, "dm")) { dispatch_async_f(dispatch_get_global_queue(0, 0), NULL, first); dispatch_main(); }
  if (!strcmp(mode, "efd")) {
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    double s = now(); for (long i = 0; i < N; i++) eventfd_write(fd, 1);
    printf("eventfd_write: %.1f ns\n", (now() - s) / N);
    s = now(); for (long i = 0; i < N; i++) _dispatch_main_queue_callback_4CF(NULL);
    printf("empty _dispatch_main_queue_callback_4CF: %.1f ns\n", (now() - s) / N);
    return 0;
  }
  int fd = _dispatch_get_main_queue_handle_4CF();
  loop = g_main_loop_new(NULL, FALSE);
  g_unix_fd_add(fd, G_IO_IN, ready, NULL);
  for (int r = 0; r < 3; r++) { wakes = 0; first("glib bridge"); g_main_loop_run(loop); }
  return 0;
}
