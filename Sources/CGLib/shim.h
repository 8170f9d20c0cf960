#ifndef BATON_CGLIB_SHIM_H
#define BATON_CGLIB_SHIM_H

#include <glib.h>
#include <glib-unix.h>
#include <gio/gio.h>
#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <gio/gdesktopappinfo.h>
#include <unistd.h>
#include <sys/syscall.h>

// libdispatch's run-loop hooks, exported but in no public header. On Linux the handle is an
// eventfd that becomes readable when work is queued on the main queue; the callback drains it.
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *msg);

// True on the process's initial thread (the one libdispatch binds the main queue to).
// Cached per thread: gettid is a system call and this is asked on every main-loop callback.
static inline int baton_is_initial_thread(void) {
    static __thread int cached = -1;
    if (cached < 0) cached = (pid_t)syscall(SYS_gettid) == getpid();
    return cached;
}

// A descriptor for process `pid` that becomes readable when it exits (pidfd_open(2), Linux
// 5.3), and a signal sent through it, so the signal can never reach a process that took the
// number over (pidfd_send_signal(2)). -1 and errno on failure.
static inline int baton_pidfd_open(pid_t pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}
static inline int baton_pidfd_send_signal(int pidfd, int signal) {
    return (int)syscall(SYS_pidfd_send_signal, pidfd, signal, (void *)0, 0);
}

// G_VARIANT_TYPE("…") is a cast macro Swift cannot import; the string must outlive the call.
static inline const GVariantType *baton_variant_type(const char *type_string) {
    return (const GVariantType *)type_string;
}

// GObject's variadic property calls, which Swift cannot make, for the few properties Baton sets.
static inline void baton_tls_require_client_certificate(GTlsConnection *connection) {
    g_object_set(connection, "authentication-mode", G_TLS_AUTHENTICATION_REQUIRED, NULL);
}

// A TLS client (server) connection over `base` with no certificate database from the start.
// g_tls_client_connection_new and g_tls_server_connection_new give a new connection the
// system's CA list, and glib-networking 2.74 parses the whole CA bundle again for each one
// (6-7 ms of CPU); setting the database to NULL afterwards costs another 0.5-1 ms. Baton's peers
// are checked under their policy (CertificateCheck), never the system's CAs, so the connection
// is made with "database" NULL instead: a few microseconds.
static inline GIOStream *baton_tls_client_connection_new(GIOStream *base, GError **error) {
    return g_initable_new(g_tls_backend_get_client_connection_type(g_tls_backend_get_default()), NULL, error,
                          "base-io-stream", base, "database", NULL, NULL);
}
static inline GIOStream *baton_tls_server_connection_new(GIOStream *base, GTlsCertificate *certificate, GError **error) {
    return g_initable_new(g_tls_backend_get_server_connection_type(g_tls_backend_get_default()), NULL, error,
                          "base-io-stream", base, "certificate", certificate, "database", NULL, NULL);
}

// The DER bytes of a GTlsCertificate (its "certificate" property); free with g_byte_array_unref.
static inline GByteArray *baton_tls_certificate_der(GTlsCertificate *certificate) {
    GByteArray *der = NULL;
    g_object_get(certificate, "certificate", &der, NULL);
    return der;
}

// The G_SOURCE_* and GIOCondition values as plain ints for Swift.
static inline gboolean baton_source_continue(void) { return G_SOURCE_CONTINUE; }
static inline gboolean baton_source_remove(void) { return G_SOURCE_REMOVE; }

// Bytes allocated on the heap now (glibc's mallinfo2), for the memory benchmarks and tests.
#include <malloc.h>
static inline size_t baton_heap_bytes_in_use(void) { return mallinfo2().uordblks; }

// The CPUs the calling thread may run on, as a mask of the first 64 (0 when it cannot be read),
// and setting them: the benchmarks' figure of what waking a thread on another CPU costs. Raw
// system calls, as glibc declares sched_setaffinity only for _GNU_SOURCE.
static inline unsigned long baton_thread_cpus(void) {
    unsigned long mask = 0;
    return syscall(SYS_sched_getaffinity, 0, sizeof mask, &mask) < 0 ? 0 : mask;
}
static inline int baton_set_thread_cpus(unsigned long mask) {
    return (int)syscall(SYS_sched_setaffinity, 0, sizeof mask, &mask);
}

#endif
