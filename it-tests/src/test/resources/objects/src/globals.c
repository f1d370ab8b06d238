// Global data: .data, .rodata (const volatile), .bss, a custom .data.* section and .kconfig.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

int counter = 42;                       /* .data */
const volatile __u32 threshold = 1000;  /* .rodata */
const volatile __u64 scale = 3;         /* .rodata */
__u64 total;                            /* .bss */
__u64 hits[4];                          /* .bss */
int custom SEC(".data.custom") = 7;     /* .data.custom */
extern unsigned int CONFIG_HZ __kconfig; /* .kconfig */

SEC("syscall")
int use_globals(void *ctx)
{
	counter++;
	total += threshold * scale;
	hits[counter & 3]++;
	custom += 1;
	return total > threshold ? CONFIG_HZ : 0;
}

char LICENSE[] SEC("license") = "GPL";
