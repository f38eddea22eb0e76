/* What both builds share: the FIFO ring, the event heap, the command-line
 * helpers and the seed's generator (mk95: main.c net.c tcp.c core.c; aron97:
 * aron.c tcp.c core.c). */
#include "cellsim.h"
#include <stdio.h>
#include <stdlib.h>

int departures_first = 1; /* aron97 sensitivity --ties arrivals-first sets 0 */
int random_ties; /* aron97 sensitivity --ties random: simultaneous events in a random order */
static uint64_t tie_state = 88172645463325252ULL;
/* xorshift64, its own stream: the timer phases drawn by uniform() do not move */
static uint64_t tie_key(void) {
    tie_state ^= tie_state << 13;
    tie_state ^= tie_state >> 7;
    tie_state ^= tie_state << 17;
    return tie_state;
}

/* --- FIFO ring ---------------------------------------------------------- */
void ring_init(Ring *r, int cap) {
    r->v = calloc((size_t)cap, sizeof *r->v);
    r->cap = cap;
    r->head = r->n = 0;
}
void ring_push(Ring *r, int64_t x) {
    if (r->n == r->cap) { fprintf(stderr, "cellsim: ring overflow\n"); exit(3); }
    r->v[(r->head + r->n++) % r->cap] = x;
}
int64_t ring_pop(Ring *r) {
    int64_t x = r->v[r->head];
    r->head = (r->head + 1) % r->cap;
    r->n--;
    return x;
}
int64_t ring_peek(const Ring *r) { return r->v[r->head]; }

/* --- event heap ordered by (time, kind == PORT_DONE first, insertion) ----- */
static Ev *heap;
static int hn, hcap;
static uint64_t evn;
static int ev_less(const Ev *a, const Ev *b) {
    if (a->t != b->t) return a->t < b->t;
    int pa = a->kind != EV_PORT_DONE, pb = b->kind != EV_PORT_DONE;
    if (pa != pb && departures_first) return pa < pb;
    return a->n < b->n;
}
void ev_push(ps_t t, int kind, int arg, int64_t x) {
    if (hn == hcap) { hcap = hcap ? 2 * hcap : 4096; heap = realloc(heap, (size_t)hcap * sizeof *heap); }
    Ev e = {t, random_ties ? tie_key() : evn++, kind, arg, x};
    int i = hn++;
    while (i > 0 && ev_less(&e, &heap[(i - 1) / 2])) { heap[i] = heap[(i - 1) / 2]; i = (i - 1) / 2; }
    heap[i] = e;
}
int ev_pop(Ev *out) {
    if (!hn) return 0;
    *out = heap[0];
    Ev last = heap[--hn];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= hn) break;
        if (c + 1 < hn && ev_less(&heap[c + 1], &heap[c])) c++;
        if (!ev_less(&heap[c], &last)) break;
        heap[i] = heap[c];
        i = c;
    }
    heap[i] = last;
    return 1;
}

/* --- frames: cells = ceil((L + overhead) / 48): AAL5 with LLC/SNAP adds
 * 8 + 8 bytes, raw48 nothing (atm.md 5) */
Frame frames[FRAME_MASK + 1];
static int64_t next_fid;
int64_t frame_new(int is_ack, int64_t seq, int bytes) {
    int64_t fid = next_fid++;
    Frame *f = &frames[fid & FRAME_MASK];
    f->is_ack = is_ack;
    f->seq = seq;
    f->bytes = bytes;
    f->ncells = (bytes + R.cell_overhead + 47) / 48;
    f->hit = 0;
    return fid;
}

/* --- command line: bad input exits 2 with one line naming the key ------ */
void bad(const char *key, const char *why) {
    fprintf(stderr, "%s: %s: %s\n", prog, key, why);
    exit(2);
}

double num(const char *key, const char *s, double lo, double hi) {
    char *end;
    double v = strtod(s, &end);
    if (!*s || *end) bad(key, "not a number");
    if (v < lo || v > hi) bad(key, "out of range");
    return v;
}

/* splitmix64: the seed draws only the hosts' timer phases (catalogues 0 and
 * 1.1, "Seeds": each host's coarse-timer phase in [0, tick)). */
static uint64_t rng;
void rng_seed(uint64_t seed) {
    rng = seed * 0x2545F4914F6CDD1DULL;
    tie_state ^= seed * 0x9E3779B97F4A7C15ULL;
}
double uniform(void) {
    uint64_t z = (rng += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}
