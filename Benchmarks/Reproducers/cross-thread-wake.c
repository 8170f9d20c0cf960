// The floor of `MainActor.run` from another thread on a GLib loop (issue 30): a round trip
// between a pool-like thread and the main thread, when the main thread waits in GLib's poll()
// (woken by g_main_context_wakeup, a custom GSource, then a semaphore back), beside the same
// round trip between two threads that wait on semaphores (futexes), as libdispatch's threads do
// under dispatch_main().
//
//   clang -O2 -o /tmp/cross-thread-wake Benchmarks/Reproducers/cross-thread-wake.c \
//     $(pkg-config --cflags --libs glib-2.0) -lpthread
//   /tmp/cross-thread-wake
//
// 2026-11-28, 2 shared cores, 12 runs: the GLib loop 5.1-5.5 us per round trip (one run 12.8),
// the semaphores 3.9-4.4 us (two runs 12.6 and 17.8): about 1.3x at the medians. Both make two
// thread wake-ups per round trip, as BatonBench counts for MainActor.run (GLib loop 2.0,
// dispatchMain() 2.2); which CPUs the two threads land on moves either by 3x from run to run.
#include <glib.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

static const long N = 100000;
static atomic_int pending;
static sem_t back, there;
static GMainLoop *loop;

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e9 + t.tv_nsec; }

static gboolean prepare(GSource *s, gint *timeout) { *timeout = -1; return atomic_load(&pending) != 0; }
static gboolean check(GSource *s) { return atomic_load(&pending) != 0; }
static gboolean dispatch(GSource *s, GSourceFunc f, gpointer d) {
  atomic_store(&pending, 0);
  sem_post(&back);
  return G_SOURCE_CONTINUE;
}
static GSourceFuncs funcs = { prepare, check, dispatch, NULL, NULL, NULL };

static void *glibClient(void *arg) {
  double start = now();
  for (long i = 0; i < N; i++) {
    atomic_store(&pending, 1);
    g_main_context_wakeup(NULL);
    sem_wait(&back);
  }
  printf("GLib loop (poll, g_main_context_wakeup): %.0f ns per round trip\n", (now() - start) / N);
  g_main_loop_quit(loop);
  return NULL;
}

static void *semServer(void *arg) {
  for (long i = 0; i < N; i++) { sem_wait(&there); sem_post(&back); }
  return NULL;
}

int main(void) {
  sem_init(&back, 0, 0);
  sem_init(&there, 0, 0);
  GSource *source = g_source_new(&funcs, sizeof(GSource));
  g_source_attach(source, NULL);
  loop = g_main_loop_new(NULL, FALSE);
  pthread_t t;
  pthread_create(&t, NULL, glibClient, NULL);
  g_main_loop_run(loop);
  pthread_join(t, NULL);

  pthread_create(&t, NULL, semServer, NULL);
  double start = now();
  for (long i = 0; i < N; i++) { sem_post(&there); sem_wait(&back); }
  printf("two threads on semaphores (futex): %.0f ns per round trip\n", (now() - start) / N);
  pthread_join(t, NULL);
  return 0;
}
