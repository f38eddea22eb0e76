/* Adaptive fast retransmit (paper 5.1.1; tcp.md 3; atmsim's user account
 * docs/tcp.md V13-V15): a 2-bit saturating predictor per connection, state 0
 * at the start; in states 2-3 a fast retransmission of X also retransmits its
 * successor X+1 at once, whatever cwnd allows, if X+1 was sent and is not yet
 * acknowledged.  Episodes (tcp.md 3, "our exact definition"): a fast
 * retransmission of X = [u, u + len) opens one if none is open; the first
 * later ACK that advances snd_una judges it consecutive if it is exactly
 * u + len and X+1 had been sent before, single otherwise.  The fast
 * retransmission that then repairs X+1 continues the episode (V14).  A timeout
 * closes the open episode without a verdict; retransmissions by Vegas' worried
 * check and by timeouts are never doubled (tcp.md 3 [choice]). */
#include "sender.h"
#include <stdio.h>

static struct {
    int s, open, succ_sent;
    int64_t u, len, cont; /* cont: the successor a consecutive verdict left to repair, -1 none */
    long extra;
} Af[NCONN];
#define A Af[cc]

static int started;

static void init(void) {
    for (int c = 0; c < NCONN; c++) Af[c].cont = -1;
    started = 1;
}

void afr_fast_rexmit(int64_t u, int64_t len) {
    if (!started) init();
    int64_t succ = u + len;
    if (A.s >= 2 && succ < S.max) { /* double fast retransmit */
        tcp_send_seg(succ, S.max - succ < S.mss ? S.max - succ : S.mss);
        A.extra++;
        R.afr_extra++;
        if (R.trace) fprintf(stderr, "%.6f afrsucc conn=%d seq=%lld state=%d\n", (double)now / PS_S, cc, (long long)succ, A.s);
    }
    if (A.open) return;
    if (u == A.cont) { A.cont = -1; return; } /* the successor of a consecutive episode: no new episode */
    A.open = 1;
    A.u = u;
    A.len = len;
    A.succ_sent = succ < S.max;
}

void afr_advance(int64_t ack) {
    if (!started) init();
    if (A.cont >= 0 && ack > A.cont) A.cont = -1; /* repaired by other means */
    if (!A.open || ack <= A.u) return;
    int consecutive = ack == A.u + A.len && A.succ_sent;
    A.s = consecutive ? (A.s < 3 ? A.s + 1 : 3) : (A.s > 0 ? A.s - 1 : 0);
    if (consecutive) A.cont = A.u + A.len;
    A.open = 0;
    if (R.trace)
        fprintf(stderr, "%.6f afr conn=%d %s state=%d\n", (double)now / PS_S, cc, consecutive ? "consecutive" : "single", A.s);
}

void afr_timeout(void) {
    if (!started) init();
    A.open = 0;
    A.cont = -1;
}
