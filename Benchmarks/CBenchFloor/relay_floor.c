// The bare relay hop beside a bare round trip (CBenchFloor.h): what the processes and the
// scheduler cost when the agent's hop does no work at all.
#define _GNU_SOURCE
#include "CBenchFloor.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { message_size = 200 };

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

// Waits for fd to be readable, then reads what it has: <= 0 at its end or on an error.
static ssize_t receive(int fd, char *buffer, size_t size) {
    struct pollfd watched = { .fd = fd, .events = POLLIN };
    if (poll(&watched, 1, -1) < 0) return -1;
    return recv(fd, buffer, size, 0);
}

// Reads exactly `size` bytes (the peer sends them in one piece; a short read is waited out).
static int receive_all(int fd, char *buffer, size_t size) {
    size_t got = 0;
    while (got < size) {
        ssize_t n = receive(fd, buffer + got, size - got);
        if (n <= 0) return -1;
        got += (size_t)n;
    }
    return 0;
}

// A connected pair of loopback TCP sockets, without Nagle's delay (as GIO's TLS links).
static int tcp_pair(int *client, int *server) {
    int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listener < 0) return -1;
    struct sockaddr_in address = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t length = sizeof address;
    int one = 1;
    *client = -1;
    *server = -1;
    if (bind(listener, (struct sockaddr *)&address, sizeof address) < 0 || listen(listener, 1) < 0
        || getsockname(listener, (struct sockaddr *)&address, &length) < 0
        || (*client = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0
        || connect(*client, (struct sockaddr *)&address, sizeof address) < 0
        || (*server = accept4(listener, NULL, NULL, SOCK_CLOEXEC)) < 0) {
        int saved = errno;
        close(listener);
        if (*client >= 0) close(*client);
        errno = saved;
        return -1;
    }
    close(listener);
    setsockopt(*client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(*server, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return 0;
}

// The echoing process: answers each message on either socket with its bytes, until both end.
static void echo(int direct, int relayed) {
    char buffer[message_size];
    for (;;) {
        struct pollfd watched[2] = { { .fd = direct, .events = POLLIN }, { .fd = relayed, .events = POLLIN } };
        if (poll(watched, 2, -1) < 0) _exit(1);
        for (int i = 0; i < 2; i++) {
            if (!watched[i].revents) continue;
            ssize_t n = recv(watched[i].fd, buffer, sizeof buffer, 0);
            if (n <= 0) _exit(0);
            if (send(watched[i].fd, buffer, (size_t)n, MSG_NOSIGNAL) != n) _exit(1);
        }
    }
}

// The relaying process: each message from `app` goes to `peer`, and the peer's answer back.
static void relaying_body(int app, int peer) {
    char buffer[message_size];
    for (;;) {
        ssize_t n = receive(app, buffer, sizeof buffer);
        if (n <= 0) _exit(0);
        if (send(peer, buffer, (size_t)n, MSG_NOSIGNAL) != n || receive_all(peer, buffer, (size_t)n) < 0
            || send(app, buffer, (size_t)n, MSG_NOSIGNAL) != n) _exit(1);
    }
}

struct baton_bench_relay {
    int direct;   // this end of the TCP connection to the echoing process
    int relayed;  // this end of the Unix socket to the relaying process
    pid_t echoing, relaying;
};

// Forks a process that runs `body` on `first` and `second` (both above 2), with every other
// descriptor this process had closed (so it holds no pipe another child waits to see end).
static pid_t start(void (*body)(int, int), int first, int second, pid_t parent) {
    pid_t child = fork();
    if (child != 0) return child;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    unsigned low = (unsigned)(first < second ? first : second), high = (unsigned)(first < second ? second : first);
    if (low > 3) close_range(3, low - 1, 0);
    if (high > low + 1) close_range(low + 1, high - 1, 0);
    close_range(high + 1, ~0U, 0);
    body(first, second);
    _exit(0);
}

// One round trip of `buffer` over `fd`, in µs; a negative number if it failed.
static double round_trip(int fd, char *buffer) {
    double start_us = now_us();
    if (send(fd, buffer, message_size, MSG_NOSIGNAL) != message_size || receive_all(fd, buffer, message_size) < 0) return -1;
    return now_us() - start_us;
}

baton_bench_relay *baton_bench_relay_start(void) {
    int directClient, directServer, relayClient, relayServer, app[2];
    if (tcp_pair(&directClient, &directServer) < 0) return NULL;
    if (tcp_pair(&relayClient, &relayServer) < 0) {
        int saved = errno;
        close(directClient); close(directServer);
        errno = saved;
        return NULL;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, app) < 0) {
        int saved = errno;
        close(directClient); close(directServer); close(relayClient); close(relayServer);
        errno = saved;
        return NULL;
    }
    baton_bench_relay *relay = calloc(1, sizeof *relay);
    if (!relay) {
        close(directClient); close(directServer); close(relayClient); close(relayServer); close(app[0]); close(app[1]);
        errno = ENOMEM;
        return NULL;
    }
    pid_t parent = getpid();
    relay->echoing = start(echo, directServer, relayServer, parent);
    relay->relaying = relay->echoing > 0 ? start(relaying_body, app[1], relayClient, parent) : -1;
    int saved = errno;
    close(directServer); close(relayServer); close(app[1]); close(relayClient);
    relay->direct = directClient;
    relay->relayed = app[0];
    if (relay->echoing < 0 || relay->relaying < 0) {
        baton_bench_relay_stop(relay);
        errno = saved;
        return NULL;
    }
    char buffer[message_size];
    memset(buffer, 7, sizeof buffer);
    for (int i = 0; i < 10; i++) {
        if (round_trip(relay->direct, buffer) < 0 || round_trip(relay->relayed, buffer) < 0) {
            saved = errno;
            baton_bench_relay_stop(relay);
            errno = saved;
            return NULL;
        }
    }
    return relay;
}

int baton_bench_relay_time(baton_bench_relay *relay, int rounds, double *direct, double *relayed) {
    char buffer[message_size];
    memset(buffer, 7, sizeof buffer);
    struct timespec pause = { .tv_nsec = 100 * 1000 };  // the others asleep before each, as in the warm figures
    if (round_trip(relay->direct, buffer) < 0 || round_trip(relay->relayed, buffer) < 0) return -1;
    for (int i = 0; i < rounds; i++) {
        nanosleep(&pause, NULL);
        if ((direct[i] = round_trip(relay->direct, buffer)) < 0) return -1;
        nanosleep(&pause, NULL);
        if ((relayed[i] = round_trip(relay->relayed, buffer)) < 0) return -1;
    }
    return 0;
}

void baton_bench_relay_stop(baton_bench_relay *relay) {
    if (!relay) return;
    close(relay->direct);  // both processes end at the end of their input
    close(relay->relayed);
    if (relay->echoing > 0) waitpid(relay->echoing, NULL, 0);
    if (relay->relaying > 0) waitpid(relay->relaying, NULL, 0);
    free(relay);
}
