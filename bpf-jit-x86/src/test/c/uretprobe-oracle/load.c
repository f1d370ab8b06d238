/* Loads regs.bpf.o, attaches it to mid of the library argv[1] at entry and return, calls top(5), prints the registers. */
#define _GNU_SOURCE
#include <stdio.h>
#include <dlfcn.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
int main(int argc, char **argv) {
    void *h = dlopen(argv[1], RTLD_NOW); long (*top)(long) = dlsym(h, "top"); void *mid = dlsym(h, "mid");
    Dl_info info; dladdr(mid, &info);
    long off = (char *)mid - (char *)info.dli_fbase;
    struct bpf_object *o = bpf_object__open_file("regs.bpf.o", 0); if (bpf_object__load(o)) { perror("load"); return 1; }
    struct bpf_program *e = bpf_object__find_program_by_name(o, "at_entry"), *r = bpf_object__find_program_by_name(o, "at_return");
    struct bpf_link *l1 = bpf_program__attach_uprobe(e, 0, 0, argv[1], off), *l2 = bpf_program__attach_uprobe(r, 1, 0, argv[1], off);
    if (!l1 || !l2) { perror("attach"); return 1; }
    long v = top(5);
    int fd = bpf_map__fd(bpf_object__find_map_by_name(o, "out")); unsigned long x[5];
    for (int k = 0; k < 5; k++) bpf_map_lookup_elem(fd, &k, &x[k]);
    printf("top(5)=%ld entry: sp=%lx ip=%lx (mid=%p) return: sp=%lx (entry sp + %ld) ip=%lx (top+0x%lx) ax=%ld\n",
           v, x[0], x[1], mid, x[2], (long)(x[2] - x[0]), x[3], x[3] - (unsigned long)top, (long)x[4]);
    return 0;
}
