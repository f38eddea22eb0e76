/* TCP Vegas as Aron & Druschel ran it (paper section 5; tcp.md 2; atmsim's user
 * account docs/tcp.md V9-V12): the fine-grained clock, the retransmission
 * mechanism Vegas-RM, and Vegas' slow start (Vegas-SS) and congestion
 * avoidance (Vegas-CA), alpha = 1, beta = 3, gamma = 1 segments.
 * R.rm alone is `vegas-rm` (Lite's slow start and congestion avoidance, cwnd 1
 * MSS at the start and after a timeout, ssthresh set to the window an RM
 * decrease leaves, tcp.md 2 "Aron & Druschel combinations"); R.rm with
 * R.vegas_cc is `vegas` (initial and post-timeout window 2 MSS).  The BSD
 * coarse timer (tcp.c, Lite.4's RTO) stays as the backstop (paper footnote 5). */
#include "sender.h"
#include <stdio.h>
#include <string.h>

#define ALPHA 1
#define BETA 3
#define GAMMA 1
#define LOGN 512 /* send-log slots: the 512-KB window is 58 segments of 9128 B */

static struct {
    ps_t t[LOGN]; /* last send time of segment slot (seq / MSS) */
    int n[LOGN];  /* its transmissions */
    double sa, sd, v_timeout, base_rtt, sum_rtt; /* seconds; v_timeout 0 = no sample yet */
    int cnt_rtt, inc_flag, worried, after_timeout;
    int64_t begseq, incr, newcwnd, recover;
    ps_t begtime, t_cwnd_changed;
} Va[NCONN];
#define V Va[cc]

int vegas_variant(const char *name) {
    static const char *names[] = {"lite", "lite-afr", "vegas-rm", "vegas-rm-afr", "vegas", "vegas-afr"};
    for (int i = 0; i < 6; i++)
        if (!strcmp(name, names[i])) {
            R.afr = i % 2;
            R.rm = i >= 2;
            R.vegas_cc = i >= 4;
            return 1;
        }
    return 0;
}

static int slot(int64_t seq) { return (int)((seq / S.mss) % LOGN); }
static double secs(ps_t t) { return (double)t / PS_S; }

void vegas_init(void) {
    for (cc = 0; cc < NCONN; cc++) {
        V.base_rtt = 1e9;
        V.inc_flag = 1; /* ns-2's v_inc_flag_ = 1: the first decision holds the window (docs/tcp.md V12) */
        V.t_cwnd_changed = -1;
        if (R.vegas_cc) S.cwnd = 2 * S.mss; /* initial window 2 (paper 5.3) */
    }
    cc = 0;
}

/* Every byte range sent stamps the slots it covers (segments are MSS-aligned
 * except Lite's short retransmissions, which stamp both slots they touch). */
void vegas_sent(int64_t seq, int64_t len) {
    for (int64_t s = seq / S.mss; s <= (seq + len - 1) / S.mss; s++) {
        V.t[s % LOGN] = now;
        V.n[s % LOGN] = seq < S.max ? V.n[s % LOGN] + 1 : 1;
    }
}

static int expired(void) {
    return V.v_timeout > 0 && S.max > S.una && secs(now - V.t[slot(S.una)]) >= V.v_timeout;
}

/* The oldest unacknowledged segment again; the coarse timer restarts with the
 * current RTO and timing stops (Karn). */
static void rexmit_oldest(void) {
    int64_t len = S.max - S.una < S.mss ? S.max - S.una : S.mss;
    tcp_send_seg(S.una, len);
    S.rexmt = S.rxtcur;
    S.t_rtt = 0;
}

/* The fine clock (docs/tcp.md V9): sample = now - send time of the newest
 * segment the ACK covers, if it was sent once. */
static void fine_sample(int64_t ack) {
    int i = slot(ack - 1);
    if (V.n[i] != 1) return;
    double r = secs(now - V.t[i]);
    if (r < V.base_rtt) V.base_rtt = r;
    if (V.v_timeout <= 0) {
        V.sa = 8 * r;
        V.sd = r;
    } else {
        double n = r - V.sa / 8;
        V.sa += n;
        n = (n < 0 ? -n : n) - V.sd / 4;
        V.sd += n;
    }
    V.v_timeout = (V.sa / 4 + V.sd) / 2;
    V.v_timeout += V.v_timeout / 16;
    V.sum_rtt += r;
    V.cnt_rtt++;
}

/* Vegas-SS and Vegas-CA (docs/tcp.md V12), on every new ACK, snd_una already
 * advanced; the decision once per RTT, on the first ACK beyond begseq. */
static void vegas_growth(int64_t ack) {
    int64_t outstanding = (S.nxt - S.una) / S.mss;
    if (ack > V.begseq) {
        double rtt = V.cnt_rtt ? V.sum_rtt / V.cnt_rtt : secs(now - V.begtime);
        int64_t sent = (S.nxt - V.begseq) / S.mss;
        if (V.cnt_rtt && (rtt < V.base_rtt || sent <= 1)) V.base_rtt = rtt;
        double expected = (double)(outstanding + 1) / V.base_rtt, actual = (double)sent / rtt;
        int diff = (int)((expected - actual) * V.base_rtt + 0.5);
        if (S.cwnd < S.ssthresh) { /* Vegas-SS: double only every other RTT */
            V.inc_flag = !V.inc_flag;
            if (!V.inc_flag) {
                V.incr = 0;
            } else if (diff > GAMMA) { /* to congestion avoidance */
                S.ssthresh = 2 * S.mss;
                S.cwnd -= S.cwnd / 8;
                if (S.cwnd < 2 * S.mss) S.cwnd = 2 * S.mss;
                V.incr = 0;
            } else {
                V.incr = S.mss;
            }
        } else if (diff > BETA) { /* Vegas-CA */
            S.cwnd -= S.mss;
            if (S.cwnd < 2 * S.mss) S.cwnd = 2 * S.mss;
            V.incr = 0;
        } else {
            V.incr = diff < ALPHA ? S.mss * S.mss / S.cwnd : 0;
        }
        if (R.trace) fprintf(stderr, "%.6f vegas conn=%d diff=%d incr=%lld cwnd=%lld ssthresh=%lld base=%.6f rtt=%.6f\n",
                             secs(now), cc, diff, (long long)V.incr, (long long)S.cwnd, (long long)S.ssthresh,
                             V.base_rtt, rtt);
        V.begseq = S.nxt;
        V.begtime = now;
        V.sum_rtt = 0;
        V.cnt_rtt = 0;
    }
    if (V.incr == S.mss && S.cwnd >= S.ssthresh) V.incr = 0;
    if (V.incr > 0 && S.cwnd - (outstanding + 1) * S.mss <= 2 * S.mss)
        S.cwnd = S.cwnd + V.incr < WIN ? S.cwnd + V.incr : WIN;
}

/* Vegas-RM on a duplicate ACK (docs/tcp.md V10). */
static void dup_ack(void) {
    ++S.dupacks;
    if (expired() || S.dupacks == 3) {
        if (V.after_timeout && S.una < V.recover) return; /* ns-2's bug_fix_: not before the timeout is repaired */
        int i = slot(S.una), once = V.n[i] == 1;
        V.worried = 2;
        V.v_timeout += once ? V.v_timeout / 8 : V.v_timeout;
        int64_t w = (S.cwnd < WIN ? S.cwnd : WIN) / S.mss, w0 = w;
        int decrease = V.t_cwnd_changed < V.t[i]; /* at most one decrease per RTT */
        if (decrease) {
            w = w <= 3 ? 2 : once ? w - w / 4 : w / 2; /* "to 3/4", halved for a retransmission */
            V.newcwnd = w * S.mss;
            S.cwnd = V.newcwnd + S.dupacks * S.mss;
            if (!R.vegas_cc) S.ssthresh = V.newcwnd; /* vegas-rm: Lite's CA resumes from there */
            V.t_cwnd_changed = now;
        }
        if (R.trace) fprintf(stderr, "%.6f rm conn=%d una=%lld dupacks=%d w=%lld once=%d decrease=%d cwnd=%lld\n",
                             secs(now), cc, (long long)S.una, S.dupacks, (long long)w0, once, decrease,
                             (long long)S.cwnd);
        if (once) S.dupacks = 3;
        R.fastrexmit++;
        R.conn_fastrexmit[cc]++;
        int64_t u = S.una, len = S.max - u < S.mss ? S.max - u : S.mss;
        rexmit_oldest();
        if (R.afr) afr_fast_rexmit(u, len);
        tcp_output();
    } else if (S.dupacks > 3) {
        S.cwnd = S.cwnd + S.mss < WIN ? S.cwnd + S.mss : WIN;
        tcp_output();
    }
}

void vegas_ack(int64_t ack) {
    if (ack <= S.una) {
        /* a duplicate as in Lite: ack == snd_una while the timer runs */
        if (S.rexmt == 0 || ack != S.una) S.dupacks = 0;
        else dup_ack();
        return;
    }
    if (S.dupacks > 3 && S.cwnd > V.newcwnd) { /* leave recovery */
        S.cwnd = V.newcwnd;
        if (R.vegas_cc) S.ssthresh = 2 * S.mss; /* continue in Vegas-CA */
    }
    S.dupacks = 0;
    tcp_trace("ack", ack);
    fine_sample(ack);
    if (S.t_rtt && ack > S.rtseq) tcp_xmit_timer(S.t_rtt);
    S.rexmt = ack == S.max ? 0 : S.rxtcur;
    if (!R.vegas_cc) {
        int64_t incr = tcp_lite_incr();
        S.cwnd = S.cwnd + incr < WIN ? S.cwnd + incr : WIN;
    }
    S.una = ack;
    if (S.nxt < S.una) S.nxt = S.una;
    if (V.after_timeout && ack >= V.recover) V.after_timeout = 0;
    if (R.afr) afr_advance(ack);
    if (R.vegas_cc) vegas_growth(ack);
    /* the worried check (V11): the first and second new ACK after a
     * retransmission; a check's own retransmission re-arms it unless
     * --worried once (ns-2's reading) */
    if (V.worried > 0) {
        V.worried--;
        if (expired()) {
            tcp_trace("worried", S.una);
            rexmit_oldest();
            S.dupacks = 3;
            if (!R.worried_once) V.worried = 2;
        } else {
            V.worried = 0;
        }
    }
    tcp_output();
}

/* After tcp.c's coarse timeout (ssthresh halved, go-back-N): Vegas restarts
 * from 2 MSS (ns-2 v_slowstart_), the decrease time is now, the worried check
 * stops, and RM waits until everything sent before the timeout is repaired. */
void vegas_timeout(void) {
    if (R.vegas_cc) S.cwnd = 2 * S.mss;
    V.t_cwnd_changed = now;
    V.worried = 0;
    V.after_timeout = 1;
    V.recover = S.max;
}
