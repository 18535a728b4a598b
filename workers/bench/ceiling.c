/* The ceiling a capture analysis is measured against on the machine it runs on: a plain C loop that reads a
 * classic pcap file (mapped, as our analysis maps it) and builds a per-connection summary (packets, bytes, first
 * and last time) in an open-addressing hash table keyed by the TCP 4-tuple, both directions one connection, and
 * a SYN with another initial sequence number on a 4-tuple a new connection (port reuse, as our analysis has it:
 * the summary before it is kept in a list). Nothing else: no sequence numbers, no retransmissions, no findings, no output but the totals.
 *
 *     gcc -O2 -o ceiling ceiling.c && ./ceiling FILE.pcap
 *
 * bench_shapes.py builds it with the system's C compiler and times it beside ours on the pcap form of each shape
 * (decision 0028). It reads Ethernet (VLAN tags skipped), Linux cooked (v1 and v2) and raw IP link types, IPv4
 * (first fragments) and IPv6 (TCP right after the fixed header); other packets are counted and skipped. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    uint64_t a_hi, a_lo, b_hi, b_lo; /* the lower end first (address, then port) */
    uint32_t ports;                  /* a_port << 16 | b_port */
    uint32_t used;
    uint64_t packets, bytes;
    double first, last;
    uint32_t base[2]; /* each end's first sequence number, and whether it has been seen */
    uint8_t seen[2];
} Conn;

/* A connection's summary once a SYN with another initial sequence number took its 4-tuple (port reuse). */
typedef struct {
    uint64_t packets, bytes;
    double first, last;
} Done;

static Conn *table;
static uint64_t size, used;
static Done *done;
static uint64_t n_done, done_size;

static void finish(const Conn *c) {
    if (n_done == done_size) {
        done_size = done_size ? 2 * done_size : 1 << 16;
        done = realloc(done, done_size * sizeof(Done));
        if (!done) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
    }
    done[n_done++] = (Done){c->packets, c->bytes, c->first, c->last};
}

static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t u32(const uint8_t *p, int swap) {
    uint32_t v;
    memcpy(&v, p, 4);
    return swap ? __builtin_bswap32(v) : v;
}
static uint64_t be64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return __builtin_bswap64(v);
}

static uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h *= 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 31);
}

static uint64_t hash(const Conn *k) {
    return mix(mix(mix(mix(mix(0, k->a_hi), k->a_lo), k->b_hi), k->b_lo), k->ports);
}

static Conn *find(const Conn *k) {
    uint64_t j = hash(k) & (size - 1);
    for (;;) {
        Conn *c = &table[j];
        if (!c->used) return c;
        if (c->a_lo == k->a_lo && c->b_lo == k->b_lo && c->ports == k->ports && c->a_hi == k->a_hi &&
            c->b_hi == k->b_hi)
            return c;
        j = (j + 1) & (size - 1);
    }
}

static void grow(void) {
    Conn *old = table;
    uint64_t n = size;
    size = n ? 2 * n : 1 << 16;
    table = calloc(size, sizeof(Conn));
    if (!table) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (uint64_t i = 0; i < n; i++)
        if (old[i].used) *find(&old[i]) = old[i];
    free(old);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE.pcap\n", argv[0]);
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        perror(argv[1]);
        return 2;
    }
    size_t len = (size_t)st.st_size;
    const uint8_t *buf = len ? mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    if (len < 24 || buf == MAP_FAILED) {
        fprintf(stderr, "%s: not a pcap file\n", argv[1]);
        return 2;
    }
    madvise((void *)buf, len, MADV_SEQUENTIAL);
    uint32_t magic;
    memcpy(&magic, buf, 4);
    int swap = magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1;
    uint32_t m = swap ? __builtin_bswap32(magic) : magic;
    if (m != 0xa1b2c3d4 && m != 0xa1b23c4d) {
        fprintf(stderr, "%s: not a classic pcap file (pcapng and gzip are not read here)\n", argv[1]);
        return 2;
    }
    double frac = m == 0xa1b23c4d ? 1e-9 : 1e-6;
    uint32_t link = u32(buf + 20, swap) & 0xffff;
    grow();
    uint64_t packets = 0, tcp = 0;
    size_t pos = 24, dropped = 0;
    while (pos + 16 <= len) {
        if (pos - dropped >= (64 << 20)) { /* the pages read go, as our analysis lets them go */
            size_t upto = pos & ~(size_t)4095;
            madvise((void *)(buf + dropped), upto - dropped, MADV_DONTNEED);
            dropped = upto;
        }
        uint32_t caplen = u32(buf + pos + 8, swap), wire = u32(buf + pos + 12, swap);
        double ts = u32(buf + pos, swap) + u32(buf + pos + 4, swap) * frac;
        const uint8_t *p = buf + pos + 16;
        pos += 16 + (size_t)caplen;
        if (pos > len) break;
        packets++;
        const uint8_t *end = p + caplen;
        uint16_t type;
        if (link == 1) { /* Ethernet */
            if (caplen < 14) continue;
            type = be16(p + 12);
            p += 14;
            while ((type == 0x8100 || type == 0x88a8) && p + 4 <= end) {
                type = be16(p + 2);
                p += 4;
            }
        } else if (link == 113) { /* Linux cooked v1 */
            if (caplen < 16) continue;
            type = be16(p + 14);
            p += 16;
        } else if (link == 276) { /* Linux cooked v2 */
            if (caplen < 20) continue;
            type = be16(p);
            p += 20;
        } else if (link == 101 || link == 12 || link == 14) { /* raw IP */
            if (caplen < 1) continue;
            type = (p[0] >> 4) == 6 ? 0x86dd : 0x0800;
        } else {
            fprintf(stderr, "%s: link type %u is not read here\n", argv[1], link);
            return 2;
        }
        Conn k = {0};
        uint16_t sport, dport;
        uint32_t seq;
        int swapped, syn;
        if (type == 0x0800) {
            if (p + 20 > end || p[9] != 6 || (be16(p + 6) & 0x1fff)) continue;
            const uint8_t *t = p + (p[0] & 15) * 4;
            if (t + 14 > end) continue;
            uint64_t src = (uint64_t)be16(p + 12) << 16 | be16(p + 14);
            uint64_t dst = (uint64_t)be16(p + 16) << 16 | be16(p + 18);
            sport = be16(t), dport = be16(t + 2);
            seq = (uint32_t)be16(t + 4) << 16 | be16(t + 6);
            syn = (t[13] & 0x12) == 0x02;
            swapped = src > dst || (src == dst && sport > dport);
            k.a_lo = swapped ? dst : src;
            k.b_lo = swapped ? src : dst;
        } else if (type == 0x86dd) {
            if (p + 54 > end || p[6] != 6) continue;
            uint64_t sh = be64(p + 8), sl = be64(p + 16), dh = be64(p + 24), dl = be64(p + 32);
            sport = be16(p + 40), dport = be16(p + 42);
            seq = (uint32_t)be16(p + 44) << 16 | be16(p + 46);
            syn = (p[53] & 0x12) == 0x02;
            swapped = sh > dh || (sh == dh && (sl > dl || (sl == dl && sport > dport)));
            k.a_hi = swapped ? dh : sh;
            k.a_lo = swapped ? dl : sl;
            k.b_hi = swapped ? sh : dh;
            k.b_lo = swapped ? sl : dl;
        } else {
            continue;
        }
        k.ports = (uint32_t)(swapped ? dport : sport) << 16 | (swapped ? sport : dport);
        tcp++;
        Conn *c = find(&k);
        if (c->used && syn && c->seen[swapped] && c->base[swapped] != seq) { /* port reuse: a new connection */
            finish(c);
            *c = k;
            c->used = 1;
            c->first = ts;
        }
        if (!c->used) {
            *c = k;
            c->used = 1;
            c->first = ts;
            if (++used * 2 > size) {
                grow();
                c = find(&k);
            }
        }
        if (!c->seen[swapped]) {
            c->seen[swapped] = 1;
            c->base[swapped] = seq;
        }
        c->packets++;
        c->bytes += wire;
        c->last = ts;
    }
    printf("packets %llu tcp %llu connections %llu\n", (unsigned long long)packets, (unsigned long long)tcp,
           (unsigned long long)(used + n_done));
    return 0;
}
