/* What one cache miss costs on this machine: the floor under issue 34's "cost per packet-hop flat" bar.
 *
 *     gcc -O2 -o /tmp/memory_latency bench/memory_latency.c
 *     taskset -c 1 /tmp/memory_latency 1 3 16 48 96        # working sets in MiB
 *
 * For each working set of S MiB (64-byte lines, one random cycle through all of them), prints the time per load
 * of a single dependent chain (each address is the value just loaded: nothing overlaps, the latency) and of eight
 * independent chains interleaved (the misses overlap: the throughput the memory system gives when the next
 * addresses are known), with the set in 4-KiB pages and advised into 2-MiB huge pages (MADV_HUGEPAGE, so the
 * TLB's share can be told apart). A packet-hop of a large network reads its ports, pipes and the transports'
 * state at random among tens of MiB, so past the L2 each line it needs costs what this measures.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint64_t next_random(uint64_t *s) { /* splitmix64: a fixed cycle on every machine */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void measure(size_t mib, int huge) {
    size_t bytes = mib << 20, lines = bytes / 64, steps = 20000000;
    uint64_t *a = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    size_t *order = malloc(lines * sizeof *order);
    if (a == MAP_FAILED || order == NULL) {
        fprintf(stderr, "memory_latency: %zu MiB: cannot allocate\n", mib);
        exit(1);
    }
    if (huge)
        madvise(a, bytes, MADV_HUGEPAGE);
    uint64_t seed = 1;
    for (size_t i = 0; i < lines; i++)
        order[i] = i;
    for (size_t i = lines - 1; i > 0; i--) { /* Fisher-Yates: one cycle through every line */
        size_t j = next_random(&seed) % (i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (size_t i = 0; i < lines; i++)
        a[order[i] * 8] = order[(i + 1) % lines] * 8;
    size_t p = 0, q[8];
    double t0 = seconds();
    for (size_t i = 0; i < steps; i++)
        p = a[p];
    double dependent = (seconds() - t0) / steps * 1e9;
    for (int k = 0; k < 8; k++)
        q[k] = order[lines / 8 * k] * 8;
    t0 = seconds();
    for (size_t i = 0; i < steps / 8; i++)
        for (int k = 0; k < 8; k++)
            q[k] = a[q[k]];
    double overlapped = (seconds() - t0) / steps * 1e9;
    printf("%4zu MiB, %s pages: dependent %6.1f ns a load, eight chains %5.1f ns a load (%zu)\n", mib,
           huge ? "huge" : "4-KiB", dependent, overlapped, (p + q[0] + q[7]) % 10);
    munmap(a, bytes);
    free(order);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: memory_latency MiB...\n");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        char *end;
        long mib = strtol(argv[i], &end, 10);
        if (*end || mib < 1 || mib > 4096) {
            fprintf(stderr, "memory_latency: %s: not a working set in MiB (1..4096)\n", argv[i]);
            return 2;
        }
        measure((size_t)mib, 0);
        measure((size_t)mib, 1);
    }
    return 0;
}
