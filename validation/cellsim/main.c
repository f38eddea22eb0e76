/* cellsim main: parse one point of the Fig. 3 grid, run it, print one JSON
 * line.  Bad input: exit 2 with one line naming the key and the problem. */
#include "cellsim.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Run R;
ps_t now;
const char *prog = "cellsim";

/* 0 if v is a, 1 if v is b; else exit 2 naming the key. */
static int pick(const char *key, const char *v, const char *a, const char *b) {
    if (!strcmp(v, a)) return 0;
    if (!strcmp(v, b)) return 1;
    fprintf(stderr, "cellsim: %s: must be %s or %s\n", key, a, b);
    exit(2);
}

static void parse(int argc, char **argv) {
    R.mtu = 9180; R.short_rexmit = 1; R.buf_cells = 682; R.storage = 1; R.seed = 1; R.dur_s = 20; R.warm_s = 1;
    for (int i = 1; i < argc; i++) {
        const char *k = argv[i];
        if (i + 1 >= argc) bad(k, "missing value");
        const char *v = argv[++i];
        if (!strcmp(k, "--mtu")) {
            R.mtu = (int)num(k, v, 576, 65535);
            if (R.mtu != num(k, v, 576, 65535)) bad(k, "not an integer");
        } else if (!strcmp(k, "--buffer-kib")) {
            double b = num(k, v, 1, 4096);
            R.buf_cells = (int)(b * 1024 / 48); /* payload bytes, 48 per cell */
        } else if (!strcmp(k, "--policy")) {
            R.ppd = pick(k, v, "tail", "ppd");
        } else if (!strcmp(k, "--storage")) {
            R.storage = pick(k, v, "off", "on");
        } else if (!strcmp(k, "--short-rexmit")) {
            R.short_rexmit = pick(k, v, "off", "on");
        } else if (!strcmp(k, "--trace")) {
            R.trace = pick(k, v, "off", "on");
        } else if (!strcmp(k, "--b-uplink")) {
            R.b_up_fast = pick(k, v, "53", "155");
        } else if (!strcmp(k, "--seed")) {
            R.seed = (int)num(k, v, 1, 1e9);
        } else if (!strcmp(k, "--duration")) {
            R.dur_s = num(k, v, 0.01, 3600);
        } else if (!strcmp(k, "--warm")) {
            R.warm_s = num(k, v, 0, 3600);
        } else {
            bad(k, "unknown option (known: --mtu --buffer-kib --policy --storage --b-uplink --seed --duration --warm --short-rexmit --trace)");
        }
    }
    if (R.warm_s >= R.dur_s) bad("--warm", "must be less than --duration");
    /* G5: 15 MB/s host, 100 MB/s bus, delayed ACKs; the ablation removes all
     * storage: zero CPU and bus time (cut-through) and an ACK per packet. */
    R.host_rate = R.storage ? 15e6 : 0;
    R.bus_rate = R.storage ? 100e6 : 0;
    R.delack = R.storage;
    R.cell_overhead = 16; /* AAL5 with LLC/SNAP: 8 + 8 bytes (atm.md 5) */
    R.win = 65535; /* "no more than 64K bytes", no window scaling (G4) */
}

int main(int argc, char **argv) {
    parse(argc, argv);
    rng_seed((uint64_t)R.seed);
    ps_t slow_phase = (ps_t)(uniform() * 500 * PS_MS); /* A's 500-ms slow timer */
    ps_t fast_phase = (ps_t)(uniform() * 200 * PS_MS); /* B's 200-ms fast timer */
    net_init();
    tcp_init();
    ps_t end = (ps_t)(R.dur_s * PS_S + 0.5), warm = (ps_t)(R.warm_s * PS_S + 0.5);
    ev_push(slow_phase, EV_TICK_SLOW, 0, 0);
    ev_push(fast_phase, EV_TICK_FAST, 1, 0);
    ev_push(warm, EV_SNAP, 0, 0);
    ev_push(end, EV_END, 0, 0);
    ev_push(0, EV_START, 0, 0);
    Ev e;
    while (ev_pop(&e)) {
        now = e.t;
        if (e.kind == EV_END) break;
        switch (e.kind) {
        case EV_TICK_SLOW:
            tcp_slow_tick(0);
            ev_push(now + 500 * PS_MS, EV_TICK_SLOW, 0, 0);
            break;
        case EV_TICK_FAST:
            tcp_fast_tick(0);
            ev_push(now + 200 * PS_MS, EV_TICK_FAST, 1, 0);
            break;
        case EV_START:
            tcp_start(0);
            break;
        case EV_SNAP:
            R.delivered_warm = tcp_rcv_nxt(0);
            break;
        default:
            net_event(&e);
        }
    }
    R.delivered_end = tcp_rcv_nxt(0);
    int cells = (R.mtu + 16 + 47) / 48;
    double gmax = 353207.547 * 53.0 / 155.52 / cells * (R.mtu - 40) / 1e6;
    double good = (double)(R.delivered_end - R.delivered_warm) / (R.dur_s - R.warm_s) / 1e6;
    printf("{\"mtu\": %d, \"buffer_cells\": %d, \"policy\": \"%s\", \"storage\": %s, \"seed\": %d, "
           "\"duration_s\": %g, \"warm_s\": %g, \"goodput_MBps\": %.6f, \"g_max_MBps\": %.6f, "
           "\"timeouts\": %ld, \"timeouts_window\": %ld, \"fast_retransmits\": %ld, "
           "\"fast_retransmits_window\": %ld, \"cells_dropped\": %ld, \"cells_dropped_window\": %ld, "
           "\"cells_in\": %ld, \"episodes_window\": %ld, \"frames_hit_window\": %ld, \"eoms_dropped_window\": %ld, \"frames_corrupt\": %ld, \"segments_sent\": %ld, \"segments_retransmitted\": %ld, "
           "\"acks_sent\": %ld, \"max_occupancy_cells\": %ld, \"max_backoff_shift\": %d, \"b_uplink\": %d, \"short_rexmit\": %s, \"pauses_s\": [",
           R.mtu, R.buf_cells, R.ppd ? "ppd" : "tail", R.storage ? "true" : "false", R.seed, R.dur_s,
           R.warm_s, good, gmax, R.timeouts, R.timeouts_win, R.fastrexmit, R.fastrexmit_win,
           R.cells_dropped, R.cells_dropped_win, R.cells_in, R.episodes_win, R.frames_hit_win, R.eoms_dropped_win, R.frames_corrupt, R.segs_sent,
           R.segs_rexmit, R.acks_sent, R.max_occ, R.max_backoff, R.b_up_fast ? 155 : 53, R.short_rexmit ? "true" : "false");
    for (int i = 0; i < R.npause; i++) printf("%s%.6f", i ? ", " : "", R.pause_s[i]);
    printf("]}\n");
    return 0;
}
