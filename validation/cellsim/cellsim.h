/* cellsim: an independent cell-level simulator of Morris & Kung 1995,
 * configuration (a): host A -155 Mb/s-> switch -53 Mb/s-> host B, one bulk
 * TCP A->B.  Written from the paper, the experiments catalogue (section 2)
 * and the protocol fact files only; it shares no code with atmsim. */
#ifndef CELLSIM_H
#define CELLSIM_H
#include <stdint.h>

typedef int64_t ps_t; /* simulated time in picoseconds */
#define PS_S 1000000000000LL
#define PS_MS 1000000000LL

/* A FIFO ring of 64-bit items (cells, frame ids). */
typedef struct {
    int64_t *v;
    int cap, head, n;
} Ring;
void ring_init(Ring *r, int cap);
void ring_push(Ring *r, int64_t x);
int64_t ring_pop(Ring *r);
int64_t ring_peek(const Ring *r);

/* Event kinds.  PORT_DONE sorts before every other kind at the same
 * instant: a departing cell frees its slot before an arriving one is
 * judged (catalogue 2.6, "departures before arrivals at equal instants"). */
enum { EV_PORT_DONE, EV_CELL_SW, EV_CELL_HOST, EV_CPU_DONE, EV_TXBUS_DONE,
       EV_TX_FREE, EV_RXBUS_DONE, EV_TICK_SLOW, EV_TICK_FAST, EV_START, EV_SNAP, EV_END };

typedef struct {
    ps_t t;
    uint64_t n; /* insertion order: ties are FIFO, so runs are deterministic */
    int kind, arg;
    int64_t x;
} Ev;
void ev_push(ps_t t, int kind, int arg, int64_t x);
int ev_pop(Ev *e);

/* A datagram: a TCP data segment (seq) or a pure ACK (ack). */
typedef struct {
    int is_ack;
    int64_t seq; /* data: first byte; ack: acknowledgement number */
    int bytes;   /* IP datagram bytes: L for data, 40 for an ACK */
    int ncells;  /* LLC/SNAP (8) + AAL5 trailer (8), padded to 48 (atm.md 5) */
    int conn;    /* the connection (aron97: 0..7; mk95: 0) */
    int hit;     /* aron97: a cell of it was dropped (its later cells are dead) */
} Frame;
#define FRAME_MASK 0xFFFF
extern Frame frames[FRAME_MASK + 1];
int64_t frame_new(int is_ack, int64_t seq, int bytes);

#define NCONN 8 /* connections: aron97 has eight, mk95 uses the first */

typedef struct {
    /* run parameters */
    int64_t win; /* the send window in bytes */
    int cell_overhead; /* bytes added before padding to cells: 16 (AAL5-LLC, mk95), 0 (raw48, aron97) */
    int bp95;    /* Lite.4 [BP95]: finer srtt/rttvar, RTO floor, no MSS/8 term */
    int mtu, buf_cells, ppd, storage, seed;
    double dur_s, warm_s;
    double host_rate, bus_rate; /* bytes/s; 0 = no time (no host storage) */
    int delack;
    int short_rexmit; /* 1: BSD's short retransmissions (default); 0: full segments only */
    int trace;     /* --trace on: TCP events on stderr */
    int b_up_fast; /* sensitivity: B's uplink at 155 Mb/s instead of 53 */
    /* aron97's variants (vegas.c, afr.c; tcp.md 2-3): 0 everywhere = Lite */
    int rm, vegas_cc, afr, worried_once;
    int tick_ms; /* the slow tick; 0 = 500 ms */
    /* results */
    int64_t delivered_warm, delivered_end; /* in-order payload bytes at B */
    long timeouts, timeouts_win, fastrexmit, fastrexmit_win;
    long cells_dropped, cells_dropped_win, cells_in, frames_corrupt;
    /* in the window: loss episodes (drops < 3.2 ms apart, catalogue 2.5), frames
     * losing cells, EOMs lost (each merges the next frame at B) */
    long episodes_win, frames_hit_win, eoms_dropped_win;
    ps_t last_drop;
    int64_t last_drop_fid;
    long segs_sent, segs_rexmit, acks_sent, max_occ;
    int max_backoff;
    /* fig4: pauses >= 0.5 s in which A sends no cell, starting at >= warm_s */
    double pause_s[256];
    int npause;
    ps_t last_cell_a;
    /* aron97, per connection */
    long conn_timeouts[NCONN], conn_fastrexmit[NCONN];
    int64_t conn_rexmit_bytes[NCONN];
    long afr_extra; /* successors AFR retransmitted */
} Run;
extern Run R;
extern ps_t now;

/* core.c */
extern int departures_first; /* 1: a PORT_DONE sorts first at equal instants */
extern int random_ties;      /* 1: equal instants in a random order (not insertion order) */
extern const char *prog; /* names the program in error lines */
void bad(const char *key, const char *why);
double num(const char *key, const char *s, double lo, double hi);
void rng_seed(uint64_t seed);
double uniform(void);
/* net.c (mk95) or aron.c */
void net_init(void);
void net_send(int host, int64_t fid); /* TCP hands a datagram to its host */
void net_event(const Ev *e);
/* tcp.c */
void tcp_init(void);
void tcp_start(int conn); /* connection conn's bulk transfer starts now */
void tcp_deliver(int host, int64_t fid); /* a datagram reaches TCP */
void tcp_slow_tick(int conn);
void tcp_fast_tick(int conn);
int64_t tcp_rcv_nxt(int conn);
/* vegas.c: sets R's variant flags from aron97's name; 0 if unknown */
int vegas_variant(const char *name);
#endif
