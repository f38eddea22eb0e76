/* The TCP sender's state, shared by tcp.c (Lite.4 and Reno, tcp.md 1) and the
 * aron97 variants of vegas.c (Vegas-SS, -CA, -RM, tcp.md 2) and afr.c (AFR,
 * tcp.md 3).  `cc` is the connection being served; S is its sender. */
#ifndef SENDER_H
#define SENDER_H
#include "cellsim.h"

typedef struct {
    int64_t una, nxt, max, cwnd, ssthresh, mss;
    int dupacks, t_rtt, srtt, rttvar, rxtcur, shift, rexmt; /* rexmt: ticks left, 0 = off */
    int last_rtt; /* Lite.4: the last sample, in ticks (the RTO floor) */
    int64_t rtseq;
} Snd;
extern Snd Sa[NCONN];
extern int cc;
#define S Sa[cc]
/* the send window: 65,535 B for mk95 ("no more than 64K bytes", no window
 * scaling, G4); 512 KiB for aron97 (catalogue 1.1) */
#define WIN R.win

/* tcp.c */
void tcp_send_seg(int64_t seq, int64_t len); /* one segment on the wire, snd_nxt untouched */
void tcp_output(void);                       /* tcp_output: what cwnd and the window allow */
void tcp_trace(const char *what, int64_t x);
void tcp_xmit_timer(int rtt);                /* the coarse (BSD) RTT sample, in ticks */
int64_t tcp_lite_incr(void);                 /* Lite's per-ACK increment at the current cwnd */
/* vegas.c: Vegas-RM handles every ACK of the variants that have it */
void vegas_init(void);
void vegas_sent(int64_t seq, int64_t len);
void vegas_ack(int64_t ack);
void vegas_timeout(void);
/* afr.c */
void afr_fast_rexmit(int64_t u, int64_t len); /* a dup-ACK retransmission of [u, u + len) was just sent */
void afr_advance(int64_t ack);                /* an ACK advanced snd_una to ack */
void afr_timeout(void);
#endif
