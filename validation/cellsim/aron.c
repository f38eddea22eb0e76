/* cellsim for Aron & Druschel 1997, topology 1 (catalogue 1.1): S1..S8 ->
 * R1 -> R2 -> D1..D8, every link 3 us per cell (141.33 Mb/s), R1->R2 30 ms
 * one way, the others 1 us; eight bulk TCP-Lite (Lite.4) connections Si->Di
 * starting at (i-1) x 10 ms; 10 s.  Over ATM (`raw48` cells, R1's FCFS output
 * buffer of B/48 cells, tail drop, cells forwarded one by one, strict
 * reassembly at Di) or over a packet network (store-and-forward routers, R1's
 * FIFO of B bytes, tail drop).  `--topology 2`: catalogue 1.1's chain, S1-S4
 * -> R1 -> R2 <- S5-S8, R2 -> R3 30 ms, R3 -> R4, D1-D4 at R3, D5-D8 at R4,
 * every other link 1 us.  Replaces net.c and main.c of the mk95 build:
 * gcc aron.c tcp.c.  Bad input: exit 2 with one line naming the key. */
#include "cellsim.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Run R;
ps_t now;
const char *prog = "cellsim-aron";
static int atm = 1;
static int topo = 1; /* --topology: 1 (Fig. 1) or 2 (catalogue 1.1's chain) */
static int64_t buf_bytes = 192528;
static long dead_cells, drops_units, rev_max, ties_r1;
static ps_t last_dep_r1 = -1; /* the last departure from R1's bottleneck port */
/* --access-offsets-ps: each sender's 1 us line to R1 made longer by a static
 * amount (both ways: a link's delay is one-way propagation in each direction),
 * so that cells of different senders no longer reach R1 at the same instant;
 * the amounts are scenario inputs, given by the driver (aron97_offsets.py). */
static ps_t acc_off[NCONN];

/* --- times: 53 bytes per 3 us on every line (141.333 Mb/s, catalogue 1.1) */
#define CT ((ps_t)3000000)
#define PROP ((ps_t)1000000)
#define WAN ((ps_t)30 * PS_MS)
static ps_t tx_time(int bytes) { return atm ? CT * ((bytes + 47) / 48) : ((ps_t)bytes * 3000000 + 26) / 53; }
/* one unit on a line: a cell (ATM) or a whole packet */
static ps_t unit_time(int64_t u) { return atm ? CT : tx_time(frames[(u >> 9) & FRAME_MASK].bytes); }

/* Hosts 0..7 = S1..S8, 8..15 = D1..D8; each has one line to its switch,
 * unlimited host queue ("ports whose sending end is a host have no limit"),
 * zero processing time (the hosts are ideal, catalogue 1.1). */
static ps_t line_free[2 * NCONN];

/* Ports: 0 = R1 -> R2 (the bottleneck, limit B), 1 = R2 -> R1 (ACKs of all
 * eight connections, no limit reached).  R2 -> Di and R1 -> Si are fed at
 * most one unit per unit time of their own line by a single upstream line of
 * the same rate, so they never queue: a pure delay of one unit time + 1 us.
 * Topology 2: 0 = R1 -> R2 (S1-S4, limit B), 2 = R2 -> R3 (R1's line and
 * S5-S8, limit B; the normalising bottleneck), 1 = R3 -> R2 (ACKs of D1-D4 and,
 * from R4, of D5-D8), 3 = R4 -> R3 (ACKs of D5-D8); R3 -> R4, R3 -> Di, R4 ->
 * Di, R2 -> R1, R2 -> Si and R1 -> Si have one upstream line each: delays. */
typedef struct {
    Ring q;
    int busy;
    int64_t occ, limit; /* cells (ATM) or bytes (packet), counting the unit in transmission */
} Port;
static Port P[4];
static int data_port(int p) { return p == 0 || p == 2; }

/* Reassembly at D1..D8 (strict, atm.md 3; the EOM is the header's PTI bit,
 * so raw48 still delimits frames): as net.c host_cell. */
static int64_t rx_first[NCONN];
static int rx_count[NCONN], rx_bad[NCONN];

enum { U_EOM = 1 << 8 };

static void line_send(int h, int64_t fid) {
    const Frame *f = &frames[fid & FRAME_MASK];
    ps_t t = line_free[h] > now ? line_free[h] : now;
    int c = h % NCONN, port = topo == 1 ? (h < NCONN ? 0 : 1) : h < NCONN ? (c < 4 ? 0 : 2) : (c < 4 ? 1 : 3);
    if (atm) {
        for (int i = 0; i < f->ncells; i++) {
            t += CT;
            ev_push(t + PROP + (h < NCONN ? acc_off[h] : 0), EV_CELL_SW, port, (fid << 9) | (i == f->ncells - 1 ? U_EOM : 0) | i);
        }
    } else {
        t += tx_time(f->bytes);
        ev_push(t + PROP + (h < NCONN ? acc_off[h] : 0), EV_CELL_SW, port, (fid << 9) | U_EOM);
    }
    line_free[h] = t;
}

void net_send(int host, int64_t fid) { line_send(host == 0 ? frames[fid & FRAME_MASK].conn : NCONN + frames[fid & FRAME_MASK].conn, fid); }

static int64_t unit_size(int64_t u) { return atm ? 1 : frames[(u >> 9) & FRAME_MASK].bytes; }

static void port_start(int p) {
    if (P[p].busy || !P[p].q.n) return;
    P[p].busy = 1;
    ev_push(now + unit_time(ring_peek(&P[p].q)), EV_PORT_DONE, p, 0);
}

static void port_arrive(int p, int64_t u) {
    Port *o = &P[p];
    int64_t s = unit_size(u);
    Frame *f = &frames[(u >> 9) & FRAME_MASK];
    if (p == 0 && now == last_dep_r1) ties_r1++; /* an arrival at the instant of a departure */
    if (data_port(p) && o->occ + s > o->limit) { /* tail drop (atm.md A6; packet.md: q + s <= B) */
        f->hit = 1;
        drops_units++;
        R.cells_dropped++;
        return;
    }
    if (data_port(p) && atm && f->hit) dead_cells++; /* a cell of a frame already lost (atm.md 7.3) */
    ring_push(&o->q, u);
    o->occ += s;
    if (data_port(p) && o->occ > R.max_occ) R.max_occ = o->occ;
    if (!data_port(p) && o->occ > rev_max) rev_max = o->occ;
    port_start(p);
}

static void deliver_d(int c, int64_t u) {
    int64_t fid = u >> 9;
    if (!atm) { tcp_deliver(1, fid); return; }
    int idx = (int)(u & 0xFF), eom = (u & U_EOM) != 0;
    if (rx_first[c] < 0) { rx_first[c] = fid; rx_count[c] = 0; rx_bad[c] = 0; }
    if (fid != rx_first[c] || idx != rx_count[c]) rx_bad[c] = 1;
    rx_count[c]++;
    if (!eom) return;
    if (!rx_bad[c] && rx_count[c] == frames[fid & FRAME_MASK].ncells) tcp_deliver(1, fid);
    else R.frames_corrupt++;
    rx_first[c] = -1;
}

void net_event(const Ev *e) {
    int64_t u = e->x;
    switch (e->kind) {
    case EV_CELL_SW:
        port_arrive(e->arg, u);
        break;
    case EV_PORT_DONE: {
        Port *o = &P[e->arg];
        int64_t d = ring_pop(&o->q);
        o->occ -= unit_size(d);
        o->busy = 0;
        if (e->arg == 0) last_dep_r1 = now;
        int c = frames[(d >> 9) & FRAME_MASK].conn;
        if (topo == 2 && (e->arg == 0 || e->arg == 3)) { /* 1 us to the next switch's queueing port */
            ev_push(now + PROP, EV_CELL_SW, e->arg == 0 ? 2 : 1, d);
        } else { /* 30 ms to the far switch, then its (never queueing) ports to the host: one, or in
                  * topology 2 two for flows 5-8's data (R3 -> R4 -> Di) and flows 1-4's ACKs (R2 -> R1 -> Si) */
            int data = data_port(e->arg), hops = topo == 2 && (data ? c >= 4 : c < 4) ? 2 : 1;
            ev_push(now + WAN + hops * (unit_time(d) + PROP) + (data ? 0 : acc_off[c]), EV_CELL_HOST, data ? NCONN + c : c, d);
        }
        port_start(e->arg);
        break;
    }
    case EV_CELL_HOST:
        if (e->arg >= NCONN) {
            deliver_d(e->arg - NCONN, u);
        } else if (!atm || (u & U_EOM)) {
            tcp_deliver(0, u >> 9); /* an ACK is one cell */
        }
        break;
    default:
        break;
    }
}

/* The seed draws only each sender's slow-timer phase in [0, 500 ms)
 * (catalogue 1.1 "Seeds"; the receivers send every ACK at once, so their
 * timers never act). */
int main(int argc, char **argv) {
    R.mtu = 9168; R.seed = 1; R.dur_s = 10; R.bp95 = 1; R.win = 524288; /* 512 KB (catalogue 1.1) */
    R.warm_s = 0; R.short_rexmit = 1;
    R.cell_overhead = 0; /* raw48 (atm.md 5): 9168 B = 191 cells, an ACK one cell */
    R.tick_ms = 500;
    const char *variant = "lite";
    for (int i = 1; i < argc; i++) {
        const char *k = argv[i];
        if (i + 1 >= argc) bad(k, "missing value");
        const char *v = argv[++i];
        if (!strcmp(k, "--network")) {
            if (strcmp(v, "atm") && strcmp(v, "packet")) bad(k, "must be atm or packet");
            atm = !strcmp(v, "atm");
        } else if (!strcmp(k, "--topology")) {
            if (strcmp(v, "1") && strcmp(v, "2")) bad(k, "must be 1 or 2");
            topo = atoi(v);
        } else if (!strcmp(k, "--buffer-bytes")) {
            buf_bytes = (int64_t)num(k, v, 9168, 1e9);
        } else if (!strcmp(k, "--seed")) {
            R.seed = (int)num(k, v, 1, 1e9);
        } else if (!strcmp(k, "--bp95")) {
            if (strcmp(v, "on") && strcmp(v, "off")) bad(k, "must be on or off");
            R.bp95 = !strcmp(v, "on");
        } else if (!strcmp(k, "--ties")) { /* sensitivity: which goes first at an equal instant */
            if (strcmp(v, "departures-first") && strcmp(v, "arrivals-first") && strcmp(v, "random"))
                bad(k, "must be departures-first, arrivals-first or random");
            departures_first = !strcmp(v, "departures-first");
            random_ties = !strcmp(v, "random");
        } else if (!strcmp(k, "--access-offsets-ps")) { /* eight amounts in ps, S1..S8, comma-separated */
            const char *p = v;
            for (int c = 0; c < NCONN; c++) {
                char *end;
                long long x = strtoll(p, &end, 10);
                if (end == p || x < 0 || x > 1000000000LL || (c < NCONN - 1 ? *end != ',' : *end != 0))
                    bad(k, "must be eight comma-separated integers in 0..1000000000 (ps)");
                acc_off[c] = (ps_t)x;
                p = end + 1;
            }
        } else if (!strcmp(k, "--variant")) { /* aron97's six (catalogue 1.1; vegas.c, afr.c) */
            variant = v;
            if (!vegas_variant(v)) bad(k, "must be lite, lite-afr, vegas-rm, vegas-rm-afr, vegas or vegas-afr");
        } else if (!strcmp(k, "--trace")) { /* TCP events on stderr (tests/test_cellsim_vegas.py) */
            if (strcmp(v, "on") && strcmp(v, "off")) bad(k, "must be on or off");
            R.trace = !strcmp(v, "on");
        } else if (!strcmp(k, "--tick-ms")) { /* the slow tick: 500 ms, or fig12's 10 ms (tcp.md 1.8) */
            if (strcmp(v, "500") && strcmp(v, "10")) bad(k, "must be 500 or 10");
            R.tick_ms = atoi(v);
        } else if (!strcmp(k, "--worried")) { /* Vegas-RM: a worried-check retransmission re-arms the check, or not (ns-2) */
            if (strcmp(v, "rearm") && strcmp(v, "once")) bad(k, "must be rearm or once");
            R.worried_once = !strcmp(v, "once");
        } else {
            bad(k, "unknown option (known: --network --topology --buffer-bytes --seed --bp95 --ties --access-offsets-ps --variant --tick-ms --worried --trace)");
        }
    }
    rng_seed((uint64_t)R.seed);
    for (int p = 0; p < 4; p++) {
        ring_init(&P[p].q, data_port(p) ? (int)(buf_bytes / (atm ? 48 : 40)) + 8 : 1 << 16);
        P[p].limit = data_port(p) ? (atm ? buf_bytes / 48 : buf_bytes) : 1LL << 40; /* B/48 cells (catalogue 1.1) */
    }
    for (int c = 0; c < NCONN; c++) rx_first[c] = -1;
    tcp_init();
    for (int c = 0; c < NCONN; c++) {
        ev_push((ps_t)(uniform() * R.tick_ms * PS_MS), EV_TICK_SLOW, c, 0);
        ev_push((ps_t)c * 10 * PS_MS, EV_START, c, 0);
    }
    ps_t end = (ps_t)(R.dur_s * PS_S + 0.5);
    ev_push(end, EV_END, 0, 0);
    Ev e;
    while (ev_pop(&e)) {
        now = e.t;
        if (e.kind == EV_END) break;
        if (e.kind == EV_TICK_SLOW) {
            tcp_slow_tick(e.arg);
            ev_push(now + R.tick_ms * PS_MS, EV_TICK_SLOW, e.arg, 0);
        } else if (e.kind == EV_START) {
            tcp_start(e.arg);
        } else {
            net_event(&e);
        }
    }
    /* E (catalogue 1.1): in-order payload at the receivers by 10 s over U_max
     * of the network: ATM 333,333.3 cells/s x 10 s / 191 x 9128, packet
     * 141.333e6 x 10 / 8 / 9168 x 9128 (E_common divides both by the latter) */
    double cells = 1e6 / 3.0 * R.dur_s, mss = R.mtu - 40;
    double umax_pkt = 53.0 / 3e-6 * R.dur_s / R.mtu * mss, umax = atm ? cells / ((R.mtu + 47) / 48) * mss : umax_pkt;
    double useful = 0;
    for (int c = 0; c < NCONN; c++) useful += (double)tcp_rcv_nxt(c);
    printf("{\"network\": \"%s\", \"buffer_bytes\": %lld, \"seed\": %d, \"bp95\": %s, \"ties\": \"%s\", \"E\": %.6f, \"E_common\": %.6f, "
           "\"useful_bytes\": %.0f, \"timeouts\": %ld, \"fast_retransmits\": %ld, \"drops\": %ld, \"dead_cells\": %ld, "
           "\"dead_share\": %.6f, \"frames_corrupt\": %ld, \"max_occupancy\": %ld, \"ack_port_max\": %ld, \"ties_r1\": %ld, "
           "\"segments_sent\": %ld, \"segments_retransmitted\": %ld, \"variant\": \"%s\", \"tick_ms\": %d, "
           "\"worried\": \"%s\", \"afr_extra\": %ld, \"per_sender\": [",
           atm ? "atm" : "packet", (long long)buf_bytes, R.seed, R.bp95 ? "true" : "false",
           random_ties ? "random" : departures_first ? "departures-first" : "arrivals-first", useful / umax,
           useful / umax_pkt, useful, R.timeouts, R.fastrexmit, drops_units, dead_cells, atm ? dead_cells / cells : 0.0,
           R.frames_corrupt, R.max_occ, rev_max, ties_r1, R.segs_sent, R.segs_rexmit, variant, R.tick_ms,
           R.worried_once ? "once" : "rearm", R.afr_extra);
    for (int c = 0; c < NCONN; c++)
        printf("%s{\"useful_bytes\": %lld, \"timeouts\": %ld, \"fast_retransmits\": %ld, \"retransmitted_bytes\": %lld}",
               c ? ", " : "", (long long)tcp_rcv_nxt(c), R.conn_timeouts[c], R.conn_fastrexmit[c],
               (long long)R.conn_rexmit_bytes[c]);
    printf("]}\n");
    return 0;
}
