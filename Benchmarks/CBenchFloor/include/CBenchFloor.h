#ifndef C_BENCH_FLOOR_H
#define C_BENCH_FLOOR_H

/// The floor an agent's hop sets on this machine, with none of Baton in it: two processes
/// forked once, an echoing one reached over loopback TCP, and a relaying one reached over a
/// Unix socket that passes each message on over the same TCP and the answer back. Each is
/// blocked in poll(2) between messages, as Baton's processes are, and uses only
/// async-signal-safe calls; both die with this process.
typedef struct baton_bench_relay baton_bench_relay;

/// Starts the two processes and makes ten untimed round trips each way; NULL with errno set
/// if it cannot.
baton_bench_relay *baton_bench_relay_start(void);

/// One untimed round trip each way (the cost of having been idle), then `rounds` of 200
/// bytes straight to the echoing process and as many through the relay, alternated, with
/// 100 µs between them; each one's µs goes into `direct` and `relayed` (`rounds` each).
/// Returns 0, or -1 with errno set (the processes are then of no more use).
int baton_bench_relay_time(baton_bench_relay *relay, int rounds, double *direct, double *relayed);

/// Ends both processes, reaps them and frees `relay`.
void baton_bench_relay_stop(baton_bench_relay *relay);

#endif
