/*
 * bpf_get_current_task_btf, bpf_find_vma and bpf_copy_from_user_task in a syscall program (sleepable, and
 * bpf_tracing_func_proto's helpers are all offered to it). The thread that runs it is the kernel's current,
 * so find_vma looks in this JVM's own mm in Linux and in its /proc/self/smaps in bpf4j: the same mappings.
 * No vmlinux.h and no CO-RE: the vma is read at Linux 6.18's x86-64 offsets of struct vm_area_struct.
 */
#include "common.h"

struct task_struct;
struct vm_area_struct;

/* struct vm_area_struct on Linux 6.18 x86-64, the fields a program reads here (no CO-RE relocation). */
struct vma_6_18 {
	unsigned long vm_start;		/* 0 */
	unsigned long vm_end;		/* 8 */
	char _mm_prot[16];		/* vm_mm, vm_page_prot */
	unsigned long vm_flags;		/* 32 */
	char _more[40];
	unsigned long vm_pgoff;		/* 80 */
	void *vm_file;			/* 88 */
};

struct vma_args {
	__u64 addr;		/* in: inside a file mapping (libjvm's text) */
	__u64 anon;		/* in: inside an anonymous mapping */
	__u64 none;		/* in: in no mapping */
	__u64 user_ptr;		/* in: 16 bytes of user memory */
	__u32 copy_len;		/* in: & 15 */
	__u32 stop;		/* in: what the callback returns (0 or 1) */
	__s64 ret;		/* out from here: find_vma(addr) */
	__u64 vm_start, vm_end, vm_flags, vm_pgoff, has_file;
	__u64 calls;		/* callback calls, all find_vma calls together */
	__s64 anon_ret;
	__u64 anon_flags, anon_file;
	__s64 none_ret;
	__s64 flags_ret;	/* flags 1: -EINVAL, no callback */
	__s64 null_ctx_ret;	/* callback_ctx NULL */
	__s64 copy_ret;
	__u8 copied[16];
	__s64 copy_flags_ret;	/* flags 1: -EINVAL, dst untouched */
	__u8 copied_flags[8];
	__s64 copy_kernel_ret;	/* the ctx is kernel memory: -EFAULT, zeroed */
	__u8 copied_kernel[8];
};

struct vma_seen {
	__u64 start, end, flags, pgoff, file, calls;
	__u32 stop;
};

static long vma_cb(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct vma_6_18 *v = (struct vma_6_18 *)vma;
	struct vma_seen *s = data;
	s->start = v->vm_start;
	s->end = v->vm_end;
	s->flags = (__u32)v->vm_flags;	/* bits 0-31: those /proc/pid/smaps names */
	s->pgoff = v->vm_pgoff;
	s->file = v->vm_file != NULL;
	s->calls++;
	return s->stop & 1;
}

static long vma_cb_null(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	return 1;
}

SEC("syscall")
int vma_find(struct vma_args *a)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct vma_seen s = {};
	__u8 buf[16] = {};
	__u8 eight[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	__u8 kern[8] = {9, 9, 9, 9, 9, 9, 9, 9};

	s.stop = a->stop & 1;
	a->ret = bpf_find_vma(task, a->addr, vma_cb, &s, 0);
	a->vm_start = s.start;
	a->vm_end = s.end;
	a->vm_flags = s.flags;
	a->vm_pgoff = s.pgoff;
	a->has_file = s.file;
	s.start = s.end = 0;
	a->anon_ret = bpf_find_vma(task, a->anon, vma_cb, &s, 0);
	a->anon_flags = s.flags & 0xff;	/* rd wr ex sh mr mw me ms */
	a->anon_file = s.file;
	a->none_ret = bpf_find_vma(task, a->none, vma_cb, &s, 0);
	a->flags_ret = bpf_find_vma(task, a->addr, vma_cb, &s, 1);
	a->null_ctx_ret = bpf_find_vma(task, a->addr, vma_cb_null, NULL, 0);
	a->calls = s.calls;

	a->copy_ret = bpf_copy_from_user_task(buf, a->copy_len & 15, (void *)a->user_ptr, task, 0);
	__builtin_memcpy(a->copied, buf, sizeof(buf));
	a->copy_flags_ret = bpf_copy_from_user_task(eight, sizeof(eight), (void *)a->user_ptr, task, 1);
	__builtin_memcpy(a->copied_flags, eight, sizeof(eight));
	a->copy_kernel_ret = bpf_copy_from_user_task(kern, sizeof(kern), a, task, 0);
	__builtin_memcpy(a->copied_kernel, kern, sizeof(kern));
	return 0;
}
