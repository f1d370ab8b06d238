/*
 * Functions for the any-entry probe tests (bpf-jit-x86 dev.bpf4j.jit.probe.AnyEntry*Test), built by
 * build-anyentry.sh at several optimization levels. Every probed function is long f(long) or
 * long f(long, long), so tests call it through jffi. Nothing here is instrumented: the probes
 * displace whatever the compiler put at the entry.
 */
#define NI __attribute__((noinline))

long ae_global = 5;
static long ae_hidden = 7;

/* call tree for stack ids: ae_top -> ae_mid (twice) -> ae_leaf */
NI long ae_leaf(long a, long b) { return a * 3 + b; }
NI long ae_mid(long a) { return ae_leaf(a, 7) + 1; }
NI long ae_top(long a) { return ae_mid(a) + ae_mid(a + 1); }

/* RIP-relative operands at the entry (-O2: mov rax, [rip + x] first) */
NI long ae_rip(long a) { ae_hidden += a; return ae_hidden; }
NI long ae_got(long a) { return ae_global + a; }

/* gcc -O2 computes both arms first; the short-branch entry is hand-written below (ae_jcc8) */
NI long ae_branch(long a) { if (a > 0) return a * 3; return 1 - a; }

/* five 1-byte nops, as -fpatchable-function-entry=5,0 emits them */
NI __attribute__((patchable_function_entry(5, 0))) long ae_nops(long a) { return a + 2; }

/* the concurrency test's hammer loop: sum of f(i) for i < n */
NI long ae_hammer(long n, long (*f)(long)) { long s = 0; for (long i = 0; i < n; i++) s += f(i); return s; }

/* Hand-written entries the decoder must refuse or relocate (sizes set so the body scan sees them). */
__asm__(
    ".text\n"
    /* loop target inside the first 5 bytes: xor eax,eax; 1: add rax,rdi; dec rdi; jg 1b; ret */
    ".globl ae_spin\n.type ae_spin,@function\nae_spin:\n"
    "  xor %eax, %eax\n1: add %rdi, %rax\n  dec %rdi\n  jg 1b\n  ret\n.size ae_spin, .-ae_spin\n"
    /* a call among the first 5 bytes */
    ".globl ae_calls\n.type ae_calls,@function\nae_calls:\n"
    "  nop\n  call ae_leaf_asm\n  ret\n.size ae_calls, .-ae_calls\n"
    ".type ae_leaf_asm,@function\nae_leaf_asm:\n  lea 1(%rdi), %rax\n  ret\n.size ae_leaf_asm, .-ae_leaf_asm\n"
    /* shorter than the call: lea rax,[rdi+1]; ret (5 bytes in all, fine) and a 3-byte one */
    ".globl ae_tiny\n.type ae_tiny,@function\nae_tiny:\n  mov %rdi, %rax\n  ret\n.size ae_tiny, .-ae_tiny\n"
    /* a jump table: indirect jump in the body */
    ".globl ae_table\n.type ae_table,@function\nae_table:\n"
    "  push %rbp\n  mov %rsp, %rbp\n  lea 2f(%rip), %rax\n  jmp *%rax\n2: lea 4(%rdi), %rax\n  pop %rbp\n  ret\n.size ae_table, .-ae_table\n"
    /* an int3 at the entry (another tool's breakpoint), and a byte invalid in 64-bit mode (never called) */
    ".globl ae_bkpt\n.type ae_bkpt,@function\nae_bkpt:\n  int3\n  lea 1(%rdi), %rax\n  ret\n.size ae_bkpt, .-ae_bkpt\n"
    ".globl ae_bad\n.type ae_bad,@function\nae_bad:\n  .byte 0x06\n  lea 1(%rdi), %rax\n  ret\n.size ae_bad, .-ae_bad\n"
    /* jrcxz in the first bytes */
    ".globl ae_jrcxz\n.type ae_jrcxz,@function\nae_jrcxz:\n  mov %rdi, %rcx\n  jrcxz 3f\n  lea 1(%rdi), %rax\n  ret\n3: xor %eax, %eax\n  ret\n.size ae_jrcxz, .-ae_jrcxz\n"
    /* a short jcc among the first 5 bytes: test rdi,rdi; jle (widened to jcc rel32 in the copy) */
    ".globl ae_jcc8\n.type ae_jcc8,@function\nae_jcc8:\n  test %rdi, %rdi\n  jle 5f\n  lea (%rdi,%rdi,2), %rax\n  ret\n5: mov $1, %eax\n  sub %rdi, %rax\n  ret\n.size ae_jcc8, .-ae_jcc8\n"
    /* the whole function displaced, ret included: lea rax, [rdi + 1]; ret (5 bytes) */
    ".globl ae_ret5\n.type ae_ret5,@function\nae_ret5:\n  lea 1(%rdi), %rax\n  ret\n.size ae_ret5, .-ae_ret5\n"
    /* jmp rel8 forward out of the window, then code reached only from it: widened to rel32 */
    ".globl ae_jmp8\n.type ae_jmp8,@function\nae_jmp8:\n  jmp 4f\n  ud2\n  ud2\n  ud2\n4: lea 9(%rdi), %rax\n  ret\n.size ae_jmp8, .-ae_jmp8\n"
);
