/* One bulk TCP A->B: a 4.3BSD-Reno / 4.4BSD-Lite sender (tcp.md 1.2-1.6, the
 * MSS/8 term of Reno kept) and a BSD receiver with delayed ACKs (tcp.md 1.7).
 * Sequence numbers and windows in bytes; timers in 500-ms ticks (aron97's
 * fig12: 10 ms).  aron97's Vegas-RM and AFR hook in from vegas.c and afr.c. */
#include "sender.h"
#include <stdio.h>
#include <string.h>

#define RTTMIN 2      /* t_rttmin = 2 ticks (1 s; 20 ms at aron97's 10-ms tick, tcp.md 1.8) */
#define TPS (R.tick_ms ? 1000 / R.tick_ms : 2) /* ticks per second */
#define REXMTMAX (64 * TPS) /* 64 s */
#define MAXSHIFT 12
#define QMAX 128      /* out-of-order ranges the receiver keeps */
static const int backoff[MAXSHIFT + 1] = {1, 2, 4, 8, 16, 32, 64, 64, 64, 64, 64, 64, 64};

/* One sender and one receiver per connection; `cc` selects the connection
 * being served (mk95 has one, aron97 eight). */
Snd Sa[NCONN];

static struct {
    int64_t nxt, last_ack; /* rcv_nxt; rcv_nxt of the last ACK sent */
    int64_t q[QMAX][2];    /* out-of-order byte ranges [lo, hi), sorted, disjoint */
    int nq;
    int delack;
} Rva[NCONN];
int cc;
#define Rv Rva[cc]

static int in_window(void) { return now >= (ps_t)(R.warm_s * PS_S); }
static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Fixed-point scales of srtt and rttvar: BSD keeps srtt x8 and rttvar x4;
 * Lite.4 of [BP95] (aron97, tcp.md B6) keeps two more fraction bits of each. */
#define SS (R.bp95 ? 5 : 3)
#define RS (R.bp95 ? 4 : 2)

void tcp_init(void) {
    for (cc = 0; cc < NCONN; cc++) {
        S.mss = R.mtu - 40;
        S.cwnd = S.mss;
        S.ssthresh = 65535LL << 14;
        S.srtt = 0;
        S.rttvar = (24 * TPS / 2) << (RS - 2); /* 3 s default RTT, scaled x4 (x16 in Lite.4) */
        S.rxtcur = 6 * TPS;                     /* 6 s */
    }
    cc = 0;
    if (R.rm || R.vegas_cc || R.afr) vegas_init();
}

void tcp_trace(const char *what, int64_t x) {
    if (R.trace)
        fprintf(stderr, "%.6f %s %lld una=%lld nxt=%lld max=%lld cwnd=%lld ssthresh=%lld shift=%d rxtcur=%d t_rtt=%d\n",
                (double)now / PS_S, what, (long long)x, (long long)S.una, (long long)S.nxt, (long long)S.max,
                (long long)S.cwnd, (long long)S.ssthresh, S.shift, S.rxtcur, S.t_rtt);
}

/* One segment [seq, seq + len) to the wire (Vegas logs its send time). */
void tcp_send_seg(int64_t seq, int64_t len) {
    int64_t fid = frame_new(0, seq, (int)len + 40);
    frames[fid & FRAME_MASK].conn = cc;
    net_send(0, fid);
    R.segs_sent++;
    if (seq < S.max) { R.segs_rexmit++; R.conn_rexmit_bytes[cc] += len; }
    tcp_trace(seq < S.max ? "rexmit" : "send", seq);
    if (R.rm || R.vegas_cc) vegas_sent(seq, len);
}

/* tcp_output for a bulk sender (infinite data): a full segment, or a shorter
 * one when retransmitting (snd_nxt < snd_max), as Lite tcp_output.c's
 * silly-window test allows ("If retransmitting ... then must resend"); its
 * other short-segment cases (idle with all data fitting, len >= max_sndwnd/2)
 * never arise with unbounded data and MSS < 32,767.  New data is timed when
 * t_rtt is 0 (one segment at a time); the retransmit timer is armed when data
 * is outstanding and it is not running. */
void tcp_output(void) {
    for (;;) {
        int64_t win = S.cwnd < WIN ? S.cwnd : WIN, len = win - (S.nxt - S.una);
        if (len > S.mss) len = S.mss;
        if (len <= 0 || (len < S.mss && !(R.short_rexmit && S.nxt < S.max))) break;
        int64_t seq = S.nxt;
        tcp_send_seg(seq, len);
        S.nxt += len;
        if (S.nxt > S.max) {
            S.max = S.nxt;
            if (S.t_rtt == 0) { S.t_rtt = 1; S.rtseq = seq; }
        }
    }
    if (S.rexmt == 0 && S.nxt != S.una) S.rexmt = S.rxtcur;
}

/* srtt + 4 x mean deviation in ticks (BSD: srtt/8 + rttvar); Lite.4 floors
 * it at the last sample + 2 ticks (tcp.md B6, our reading of [BP95]). */
static int rto_base(void) {
    int v = (S.srtt + (S.rttvar << (SS - RS + 2))) >> SS;
    if (R.bp95 && S.last_rtt && v < S.last_rtt + 2) v = S.last_rtt + 2;
    return v;
}

/* tcp_xmit_timer (tcp.md 1.4), rtt in ticks; gains 1/8 and 1/4 at either scale. */
void tcp_xmit_timer(int rtt) {
    if (S.srtt != 0) {
        int d = ((rtt - 1) << (SS - 3)) - (S.srtt >> 3);
        if ((S.srtt += d) <= 0) S.srtt = 1;
        if (d < 0) d = -d;
        d -= S.rttvar >> 2;
        if ((S.rttvar += d) <= 0) S.rttvar = 1;
    } else {
        S.srtt = rtt << SS;
        S.rttvar = rtt << (RS - 1);
    }
    S.last_rtt = rtt;
    S.t_rtt = 0;
    S.shift = 0;
    S.rxtcur = clampi(rto_base(), RTTMIN, REXMTMAX);
}

static int64_t half_window(void) {
    int64_t w = (S.cwnd < WIN ? S.cwnd : WIN) / 2 / S.mss;
    return (w < 2 ? 2 : w) * S.mss;
}

/* Retransmission timeout (tcp.md 1.5): back off, go back N, slow start. */
static void timeout(void) {
    tcp_trace("timeout", S.una);
    R.timeouts++;
    R.conn_timeouts[cc]++;
    if (in_window()) R.timeouts_win++;
    if (++S.shift > MAXSHIFT) S.shift = MAXSHIFT; /* a real TCP drops here */
    if (S.shift > R.max_backoff) R.max_backoff = S.shift;
    S.rxtcur = clampi(rto_base() * backoff[S.shift], RTTMIN, REXMTMAX);
    S.rexmt = S.rxtcur;
    if (S.shift > 3) { S.rttvar += S.srtt >> (SS - RS + 2); S.srtt = 0; }
    S.nxt = S.una;
    S.t_rtt = 0;
    S.ssthresh = half_window();
    S.cwnd = S.mss;
    S.dupacks = 0;
    if (R.afr) afr_timeout();
    if (R.rm || R.vegas_cc) vegas_timeout(); /* cwnd 2 MSS in Vegas; its RM state */
    tcp_output();
}

/* Lite's maxseg/8 term; Lite.4 drops it (tcp.md, congestion avoidance) */
int64_t tcp_lite_incr(void) {
    int64_t incr = S.mss;
    if (S.cwnd > S.ssthresh) incr = incr * incr / S.cwnd + (R.bp95 ? 0 : incr / 8);
    return incr;
}

/* ACK processing: duplicate ACKs, fast retransmit / recovery (tcp.md 1.6). */
static void sender_ack(int64_t ack) {
    if (R.rm) { vegas_ack(ack); return; }
    if (ack <= S.una) {
        /* no data, window unchanged (constant), ack <= snd_una */
        if (S.rexmt == 0 || ack != S.una) {
            S.dupacks = 0;
        } else if (++S.dupacks == 3) {
            int64_t onxt = S.nxt;
            tcp_trace("fastrexmit", ack);
            R.fastrexmit++;
            R.conn_fastrexmit[cc]++;
            if (in_window()) R.fastrexmit_win++;
            S.ssthresh = half_window();
            S.rexmt = 0;
            S.t_rtt = 0;
            S.nxt = ack;
            S.cwnd = S.mss;
            tcp_output();
            if (R.afr) afr_fast_rexmit(ack, S.nxt - ack); /* Lite-AFR: maybe the successor too */
            S.cwnd = S.ssthresh + 3 * S.mss;
            if (onxt > S.nxt) S.nxt = onxt;
        } else if (S.dupacks > 3) {
            S.cwnd += S.mss;
            tcp_output();
        }
        return;
    }
    if (S.dupacks > 3 && S.cwnd > S.ssthresh) S.cwnd = S.ssthresh;
    S.dupacks = 0;
    tcp_trace("ack", ack);
    if (S.t_rtt && ack > S.rtseq) tcp_xmit_timer(S.t_rtt);
    S.rexmt = ack == S.max ? 0 : S.rxtcur;
    int64_t incr = tcp_lite_incr();
    S.cwnd = S.cwnd + incr < WIN ? S.cwnd + incr : WIN;
    S.una = ack;
    if (R.afr) afr_advance(ack);
    if (S.nxt < S.una) S.nxt = S.una;
    tcp_output();
}

static void send_ack(void) {
    int64_t fid = frame_new(1, Rv.nxt, 40);
    frames[fid & FRAME_MASK].conn = cc;
    net_send(1, fid);
    Rv.last_ack = Rv.nxt;
    Rv.delack = 0;
    R.acks_sent++;
}

/* Receiver (tcp.md 1.7; Lite tcp_input.c TCP_REASS): in order with nothing
 * queued -> delayed ACK, sent at once when the window would open by >= 2 MSS
 * (every second full segment); out of order, filling a hole, or duplicate ->
 * ACK at once.  Without delayed ACKs (the "no host storage" ablation) every
 * segment is ACKed at once.  Segments need not be MSS-aligned (a short
 * retransmission, see output), so the queue holds byte ranges. */
static void queue_range(int64_t lo, int64_t hi) {
    int i = 0, j;
    while (i < Rv.nq && Rv.q[i][1] < lo) i++;
    for (j = i; j < Rv.nq && Rv.q[j][0] <= hi; j++) { /* merge the overlapping ranges */
        if (Rv.q[j][0] < lo) lo = Rv.q[j][0];
        if (Rv.q[j][1] > hi) hi = Rv.q[j][1];
    }
    if (j == i && Rv.nq == QMAX) return; /* no room: dropped, as a full reassembly queue would */
    memmove(&Rv.q[i + 1], &Rv.q[j], (size_t)(Rv.nq - j) * sizeof Rv.q[0]);
    Rv.nq += i + 1 - j;
    Rv.q[i][0] = lo;
    Rv.q[i][1] = hi;
}

static void receiver_data(int64_t seq, int64_t len) {
    int acknow = 0;
    if (seq < Rv.nxt && seq + len > Rv.nxt) { len -= Rv.nxt - seq; seq = Rv.nxt; } /* trim the duplicate front */
    if (seq == Rv.nxt && Rv.nq == 0) {
        Rv.nxt += len;
        Rv.delack = 1;
    } else if (seq >= Rv.nxt) {
        queue_range(seq, seq + len);
        while (Rv.nq && Rv.q[0][0] <= Rv.nxt) { /* deliver what is now in order */
            if (Rv.q[0][1] > Rv.nxt) Rv.nxt = Rv.q[0][1];
            memmove(&Rv.q[0], &Rv.q[1], (size_t)--Rv.nq * sizeof Rv.q[0]);
        }
        acknow = 1;
    } else {
        acknow = 1;
    }
    if (acknow || !R.delack || Rv.nxt - Rv.last_ack >= 2 * S.mss) send_ack();
}

void tcp_deliver(int host, int64_t fid) {
    const Frame *f = &frames[fid & FRAME_MASK];
    cc = f->conn;
    if (host == 0 && f->is_ack) sender_ack(f->seq);
    if (host == 1 && !f->is_ack) receiver_data(f->seq, f->bytes - 40);
}

/* tcp_slowtimo: timers first, then t_rtt counts the tick. */
void tcp_slow_tick(int conn) {
    cc = conn;
    if (S.rexmt && --S.rexmt == 0) timeout();
    if (S.t_rtt) S.t_rtt++;
}

/* tcp_fasttimo at the receiver: a pending delayed ACK goes out. */
void tcp_fast_tick(int conn) {
    cc = conn;
    if (Rv.delack) send_ack();
}

void tcp_start(int conn) {
    cc = conn;
    tcp_output();
}

int64_t tcp_rcv_nxt(int conn) { return Rva[conn].nxt; }
