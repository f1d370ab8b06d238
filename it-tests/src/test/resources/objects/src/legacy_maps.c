// The legacy "maps" section: struct bpf_map_def, which libbpf's headers no longer provide.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct bpf_map_def {
	unsigned int type;
	unsigned int key_size;
	unsigned int value_size;
	unsigned int max_entries;
	unsigned int map_flags;
};

struct bpf_map_def SEC("maps") legacy_array = {
	.type = BPF_MAP_TYPE_ARRAY,
	.key_size = sizeof(__u32),
	.value_size = sizeof(__u64),
	.max_entries = 16,
};

struct bpf_map_def SEC("maps") legacy_hash = {
	.type = BPF_MAP_TYPE_HASH,
	.key_size = sizeof(__u64),
	.value_size = sizeof(__u32),
	.max_entries = 256,
	.map_flags = BPF_F_NO_PREALLOC,
};

SEC("socket")
int legacy_prog(struct __sk_buff *skb)
{
	__u32 key = 3;
	__u64 *v = bpf_map_lookup_elem(&legacy_array, &key);

	if (v)
		*v += 1;
	__u64 hk = skb->len;
	bpf_map_update_elem(&legacy_hash, &hk, &key, BPF_ANY);
	return 0;
}

char _license[] SEC("license") = "GPL";
__u32 _version SEC("version") = 0x050a00;
