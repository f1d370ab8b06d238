/*
 * syscall: maps and globals whose BTF types bpf4j decodes and encodes (typed maps, global variables,
 * bpftool's "formatted" dump): struct keys, bitfields (enum and signed ones too), a union, an
 * anonymous struct, char strings, enums, _Bool, typedefs, __int128, a per-CPU struct value.
 */
#include "common.h"

enum proto { PROTO_TCP = 6, PROTO_UDP = 17, PROTO_HIGH = 0x80000000u };
enum level { LEVEL_LOW = -1, LEVEL_MID = 0, LEVEL_HIGH = 1 };

typedef __u16 port_t;

struct flow_key {
	__u32 addr;
	port_t port;
	__u8 proto;
	__u8 pad;
};

struct flow_stats {
	__u64 packets;
	__u32 bytes;
	__u32 flags : 3;
	__u32 kind : 5;
	__s32 delta : 12;
	enum level lvl : 2;
	char name[8];
	union {
		__u32 word;
		__u8 b[4];
	} u;
	struct {
		__u16 lo;
		__u16 hi;
	};
	enum proto pr;
	_Bool seen;
	__s8 tiny;
	port_t ports[2];
};

struct counters {
	__u64 hits;
	__u32 last;
	__s32 neg;
};

struct cfg {
	__u16 min;
	__u16 max;
	char tag[6];
};

struct args {
	__u32 addr;
	__u16 port;
	__u8 proto;
	__u8 op;
	__u32 n;
	__s32 delta;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, struct flow_key);
	__type(value, struct flow_stats);
} flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct counters);
} pcpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, enum level);
} levels SEC(".maps");

const volatile __u32 limit = 100;                       /* .rodata */
const volatile struct cfg cfg = { 1, 9, "abc" };        /* .rodata */
__u32 ratio = 3;                                         /* .data */
enum proto default_proto = PROTO_UDP;                    /* .data */
char label[12] = "hello";                                /* .data */
__s16 offset = -5;                                       /* .data */
__u64 total;                                             /* .bss */
struct flow_stats last;                                  /* .bss */
__u32 over_limit;                                        /* .bss */
unsigned __int128 big;                                   /* .bss */

SEC("syscall")
int btf_update(struct args *a)
{
	struct flow_key k = { .addr = a->addr, .port = a->port, .proto = a->proto };
	struct flow_stats zero = {}, *s;
	struct counters *c;
	__u32 idx = 0, n = a->n;
	enum level lvl = n > limit ? LEVEL_HIGH : n == limit ? LEVEL_MID : LEVEL_LOW;

	total += (__u64)n * ratio;
	if (n > limit)
		over_limit++;
	big = (big << 8) | (n & 0xff);
	s = bpf_map_lookup_elem(&flows, &k);
	if (!s) {
		bpf_map_update_elem(&flows, &k, &zero, BPF_NOEXIST);
		s = bpf_map_lookup_elem(&flows, &k);
		if (!s)
			return -1;
	}
	s->packets++;
	s->bytes += n;
	s->flags = a->op & 7;
	s->kind = s->kind + 1;
	s->delta = a->delta;
	s->lvl = lvl;
	__builtin_memcpy(s->name, label, sizeof(s->name));
	s->name[sizeof(s->name) - 1] = 0;
	s->u.word = n;
	s->lo = a->port;
	s->hi = cfg.max;
	s->pr = default_proto;
	s->seen = 1;
	s->tiny = offset;
	s->ports[0] = a->port;
	s->ports[1] = cfg.min;
	last = *s;
	c = bpf_map_lookup_elem(&pcpu, &idx);
	if (c) {
		c->hits++;
		c->last = n;
		c->neg = -(__s32)n;
	}
	idx = a->op & 3;
	bpf_map_update_elem(&levels, &idx, &lvl, BPF_ANY);
	return a->op == 2 ? cfg.tag[0] : 0;
}
