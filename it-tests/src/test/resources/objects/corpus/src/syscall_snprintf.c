/* syscall: bpf_snprintf formats the context's numbers into the context (returned as ctx_out). */
#include "common.h"

struct msg { __u64 a; __u64 b; char text[48]; };

SEC("syscall")
int format_msg(struct msg *m)
{
	__u64 args[3] = { m->a, m->b, m->a * m->b };
	char buf[48] = {}; /* bpf_snprintf writes only the text and its NUL; the rest is copied out too */
	/* into the stack first: the kernel refuses a moved ctx pointer as a helper argument */
	long n = bpf_snprintf(buf, sizeof(buf), "%llu * %llx = %08llu", args, sizeof(args));
	__builtin_memcpy(m->text, buf, sizeof(buf));
	return n;
}
