/* The network of configuration (a): hosts (CPU, one-packet adapters, bus),
 * links and the switch's two output ports.  Host 0 = A (sender), 1 = B. */
#include "cellsim.h"
#include <stdio.h>
#include <stdlib.h>

/* --- rates: OC-3 payload container 353,207.5 cells/s; the 53 Mb/s port
 * sends 53/155.52 of those slots = 120,370.4 cells/s (catalogue G1).  Cell
 * times are rounded to the picosecond (error < 2e-7 of the rate). */
#define CT155 ((ps_t)(1e12 / 353207.547 + 0.5))
#define CT53 ((ps_t)(1e12 / (353207.547 * 53.0 / 155.52) + 0.5))
#define PROP ((ps_t)1000000) /* 1 us per link (G2) */

/* --- hosts (catalogue G5) -------------------------------------------------
 * CPU: every datagram sent or received costs bytes / host_rate, one FIFO per
 * host.  Transmit adapter: holds one packet, fetched over the bus in
 * bytes / bus_rate once the last cell of the previous one has left the line.
 * Receive adapter: store and forward; after an intact frame's EOM it crosses
 * the bus, then the CPU.  "No host storage" = zero CPU and bus times (the
 * adapter then never holds a cell back: cut-through). */
typedef struct {
    Ring cpu, txwait, rxbus; /* fids; cpu items carry the direction in bit 62 */
    int cpu_busy, tx_busy, rx_busy;
    ps_t line_free, ct_up;
    int64_t rx_first; /* reassembly: first frame id in the open buffer, -1 none */
    int rx_count, rx_bad;
} Host;
static Host H[2];

/* --- switch output ports: 0 -> B (53 Mb/s, data VC), 1 -> A (155, ACK VC). */
typedef struct {
    Ring q;
    int limit, busy, discarding, ppd, to_host;
    ps_t ct;
} Port;
static Port P[2];

#define RXDIR (1LL << 62)

static ps_t dur(int bytes, double rate) { return rate > 0 ? (ps_t)(bytes / rate * 1e12 + 0.5) : 0; }

void net_init(void) {
    for (int h = 0; h < 2; h++) {
        ring_init(&H[h].cpu, 4096);
        ring_init(&H[h].txwait, 4096);
        ring_init(&H[h].rxbus, 4096);
        H[h].rx_first = -1;
    }
    /* A's link is OC-3.  B's link runs at 53 Mb/s (paper section III, "host
     * B's link runs at only 53"); read, as the scenario morris-kung95-a has
     * it, as both directions, so B's ACK cells go up at 120,370 cells/s. */
    H[0].ct_up = CT155;
    H[1].ct_up = R.b_up_fast ? CT155 : CT53;
    for (int p = 0; p < 2; p++) {
        ring_init(&P[p].q, R.buf_cells + 8);
        P[p].limit = R.buf_cells;
        P[p].to_host = p == 0 ? 1 : 0;
        P[p].ct = p == 0 ? CT53 : CT155;
        P[p].ppd = p == 0 && R.ppd;
    }
}

static void cpu_start(int h) {
    Host *o = &H[h];
    if (o->cpu_busy || !o->cpu.n) return;
    int64_t it = ring_peek(&o->cpu);
    o->cpu_busy = 1;
    ev_push(now + dur(frames[(it & ~RXDIR) & FRAME_MASK].bytes, R.host_rate), EV_CPU_DONE, h, 0);
}

static void tx_start(int h) {
    Host *o = &H[h];
    if (o->tx_busy || !o->txwait.n) return;
    o->tx_busy = 1;
    ev_push(now + dur(frames[ring_peek(&o->txwait) & FRAME_MASK].bytes, R.bus_rate), EV_TXBUS_DONE, h, 0);
}

void net_send(int h, int64_t fid) {
    ring_push(&H[h].cpu, fid);
    cpu_start(h);
}

/* The adapter puts the frame's cells on the line back to back; each reaches
 * the switch one cell time plus the propagation delay after it starts. */
static void tx_cells(int h, int64_t fid) {
    Host *o = &H[h];
    const Frame *f = &frames[fid & FRAME_MASK];
    ps_t t = o->line_free > now ? o->line_free : now;
    int port = h == 0 ? 0 : 1;
    if (h == 0) { /* catalogue 2.4: a pause is >= 0.5 s with no cell from A */
        ps_t gap = t - R.last_cell_a;
        if (gap >= PS_S / 2 && R.last_cell_a >= (ps_t)(R.warm_s * PS_S) && R.npause < 256)
            R.pause_s[R.npause++] = (double)gap / PS_S;
    }
    for (int i = 0; i < f->ncells; i++) {
        t += o->ct_up;
        int64_t cell = (fid << 9) | ((int64_t)(i == f->ncells - 1) << 8) | i;
        ev_push(t + PROP, EV_CELL_SW, port, cell);
    }
    o->line_free = t;
    if (h == 0) R.last_cell_a = t;
    ev_push(t, EV_TX_FREE, h, 0);
}

static void port_start(Port *p, int idx) {
    if (p->busy || !p->q.n) return;
    p->busy = 1;
    ev_push(now + p->ct, EV_PORT_DONE, idx, 0);
}

/* Cell arrival at a switch port: tail drop, or PPD as in atm.md 7.2 rule 2. */
static void sw_cell(int idx, int64_t cell) {
    Port *p = &P[idx];
    int eom = (cell >> 8) & 1, room = p->q.n < p->limit, accept;
    if (idx == 0) R.cells_in++;
    if (p->ppd && p->discarding) {
        accept = eom && room;
        if (accept) p->discarding = 0; /* keep the delimiter (paper section II) */
    } else {
        accept = room;
        if (!accept && p->ppd) p->discarding = 1; /* a dropped EOM dooms the next frame */
    }
    if (!accept) {
        if (R.trace)
            fprintf(stderr, "%.6f drop seq %lld cell %d%s\n", (double)now / PS_S,
                    (long long)frames[(cell >> 9) & FRAME_MASK].seq, (int)(cell & 0xFF), eom ? " EOM" : "");
        R.cells_dropped++;
        if (now >= (ps_t)(R.warm_s * PS_S)) {
            int64_t fid = cell >> 9;
            R.cells_dropped_win++;
            if (R.cells_dropped_win == 1 || now - R.last_drop >= (ps_t)3200000000LL) R.episodes_win++;
            if (R.cells_dropped_win == 1 || fid != R.last_drop_fid) R.frames_hit_win++;
            R.eoms_dropped_win += eom;
            R.last_drop = now;
            R.last_drop_fid = fid;
        }
        return;
    }
    ring_push(&p->q, cell);
    if (idx == 0 && p->q.n > R.max_occ) R.max_occ = p->q.n;
    port_start(p, idx);
}

/* Strict AAL5 reassembly (atm.md 3): a buffer opens at the first cell after an
 * EOM and is delivered at the next EOM only if it holds exactly the cells
 * 0..EOM of one frame; a lost EOM merges two frames and both are lost. */
static void host_cell(int h, int64_t cell) {
    Host *o = &H[h];
    int64_t fid = cell >> 9;
    int idx = (int)(cell & 0xFF), eom = (cell >> 8) & 1;
    if (o->rx_first < 0) { o->rx_first = fid; o->rx_count = 0; o->rx_bad = 0; }
    if (fid != o->rx_first || idx != o->rx_count) o->rx_bad = 1;
    o->rx_count++;
    if (!eom) return;
    if (!o->rx_bad && o->rx_count == frames[fid & FRAME_MASK].ncells) {
        ring_push(&o->rxbus, fid);
        if (!o->rx_busy) {
            o->rx_busy = 1;
            ev_push(now + dur(frames[fid & FRAME_MASK].bytes, R.bus_rate), EV_RXBUS_DONE, h, 0);
        }
    } else if (h == 1) {
        R.frames_corrupt++;
    }
    o->rx_first = -1;
}

void net_event(const Ev *e) {
    int h = e->arg;
    Host *o = &H[h & 1];
    switch (e->kind) {
    case EV_CPU_DONE: {
        int64_t it = ring_pop(&o->cpu);
        o->cpu_busy = 0;
        if (it & RXDIR) {
            tcp_deliver(h, it & ~RXDIR);
        } else {
            ring_push(&o->txwait, it);
            tx_start(h);
        }
        cpu_start(h);
        break;
    }
    case EV_TXBUS_DONE:
        tx_cells(h, ring_pop(&o->txwait));
        break;
    case EV_TX_FREE: /* the last cell has left the line: the adapter is free */
        o->tx_busy = 0;
        tx_start(h);
        break;
    case EV_CELL_SW:
        sw_cell(h, e->x);
        break;
    case EV_PORT_DONE: {
        Port *p = &P[h];
        int64_t cell = ring_pop(&p->q);
        p->busy = 0;
        ev_push(now + PROP, EV_CELL_HOST, p->to_host, cell);
        port_start(p, h);
        break;
    }
    case EV_CELL_HOST:
        host_cell(h, e->x);
        break;
    case EV_RXBUS_DONE: {
        int64_t fid = ring_pop(&o->rxbus);
        ring_push(&o->cpu, fid | RXDIR);
        cpu_start(h);
        if (o->rxbus.n)
            ev_push(now + dur(frames[ring_peek(&o->rxbus) & FRAME_MASK].bytes, R.bus_rate), EV_RXBUS_DONE, h, 0);
        else
            o->rx_busy = 0;
        break;
    }
    default:
        break;
    }
}
