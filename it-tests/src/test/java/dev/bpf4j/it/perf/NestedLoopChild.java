package dev.bpf4j.it.perf;

import dev.bpf4j.jit.runtime.JitLoader;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.jit.runtime.JitExecutable;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.unwind.CodeRegion;

import java.util.List;

/**
 * The process {@link PerfCallchainTest} samples: a JIT-compiled program main → sub1 → sub2 → sub3
 * whose innermost subprogram spins in a long loop, run for {@code args[0]} milliseconds and loaded
 * with a perf map unless {@code args[1]} is {@code jitdump} (then {@code -Dbpf4j.jitdump=true} names it). Prints {@code pid N}, {@code symbol NAME} for main, sub1, sub2, sub3 (in that
 * order), then {@code runs N}.
 */
public final class NestedLoopChild {
    /** Loop iterations of sub3 per run. */
    static final int SPINS = 20_000_000;

    public static void main(String[] args) {
        long millis = Long.parseLong(args[0]);
        System.out.println("pid " + ProcessHandle.current().pid());
        boolean perfMap = args.length < 2 || args[1].equals("perfmap");
        try (JitExecutable x = new JitLoader().load(program(), LoadOptions.defaults().withPerfMap(perfMap))) {
            List<CodeRegion> regions = x.codeRegions();
            for (int i = 0; i < 4; i++) System.out.println("symbol " + regions.get(i).symbol());
            RunContext ctx = RunContext.builder().budget(Long.MAX_VALUE).build();
            long end = System.nanoTime() + millis * 1_000_000;
            int runs = 0;
            do {
                long r0 = x.run(ctx);
                if (r0 != SPINS + 3) throw new IllegalStateException("r0 = " + r0 + ", expected " + (SPINS + 3));
                runs++;
            } while (System.nanoTime() < end);
            System.out.println("runs " + runs);
        }
    }

    static Program program() {
        return new Program("nested_spin", List.of(
                mov(6, 1), call(1), exit(),                   // 0..2   main: r0 = sub1()
                call(2), alu(Opcodes.ADD, 0, 1), exit(),      // 3..5   sub1: sub2() + 1
                call(2), alu(Opcodes.ADD, 0, 1), exit(),      // 6..8   sub2: sub3() + 1
                mov(0, 1), mov(1, SPINS),                     // 9..10  sub3: r0 = 1 + SPINS
                alu(Opcodes.ADD, 0, 1), alu(Opcodes.SUB, 1, 1), // 11..12 loop body
                new Insn(Opcodes.JMP | Opcodes.K | Opcodes.JNE, 1, 0, -3, 0), // 13: if r1 != 0 goto 11
                exit()));                                     // 14
    }

    private static Insn mov(int dst, int imm) { return alu(Opcodes.MOV, dst, imm); }
    private static Insn alu(int op, int dst, int imm) { return new Insn(Opcodes.ALU64 | Opcodes.K | op, dst, 0, 0, imm); }
    /** {@code call pc + 1 + rel}. */
    private static Insn call(int rel) { return new Insn(Opcodes.JMP | Opcodes.CALL, 0, Opcodes.PSEUDO_CALL, 0, rel); }
    private static Insn exit() { return new Insn(Opcodes.JMP | Opcodes.EXIT, 0, 0, 0, 0); }
}
