/* Writes the Linux JIT's x86-64 code of one program of a BPF object to a file: what
 * `bpftool prog dump jited` shows, for bpftool builds without libbfd (Debian's). Needs root.
 * Build: gcc -O2 -o kernel_jited kernel_jited.c -lbpf
 * Use:   ./kernel_jited OBJ.o PROGRAM OUT.bin && objdump -D -b binary -mi386:x86-64 -M intel OUT.bin */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s OBJ.o PROGRAM OUT.bin\n", argv[0]);
        return 2;
    }
    struct bpf_object *obj = bpf_object__open_file(argv[1], NULL);
    if (!obj) { perror("open"); return 1; }
    struct bpf_program *p;
    bpf_object__for_each_program(p, obj) bpf_program__set_autoload(p, strcmp(bpf_program__name(p), argv[2]) == 0);
    if (bpf_object__load(obj)) { fprintf(stderr, "load failed\n"); return 1; }
    p = bpf_object__find_program_by_name(obj, argv[2]);
    if (!p) { fprintf(stderr, "no program %s\n", argv[2]); return 1; }
    struct bpf_prog_info info = {0};
    __u32 len = sizeof(info);
    if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len)) { perror("info"); return 1; }
    __u32 n = info.jited_prog_len;
    unsigned char *code = malloc(n);
    memset(&info, 0, sizeof(info));
    info.jited_prog_len = n;
    info.jited_prog_insns = (__u64)(unsigned long)code;
    len = sizeof(info);
    if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len)) { perror("info"); return 1; }
    FILE *f = fopen(argv[3], "wb");
    if (!f || fwrite(code, 1, n, f) != n) { perror("write"); return 1; }
    fclose(f);
    printf("%u bytes of %s\n", n, argv[2]);
    return 0;
}
