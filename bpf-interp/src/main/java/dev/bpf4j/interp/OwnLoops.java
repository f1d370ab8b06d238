package dev.bpf4j.interp;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * A program's own copy of {@link HotLoop}: the same class file, defined again as a hidden class, so
 * that HotSpot keeps a separate profile for it and compiles a dispatch specialised to that program
 * alone. C2 compiles the loop's {@code switch} from its profile: with one program's profile the
 * cases it never runs become traps and its hot cases are tested first (≈1.3 ns per instruction on
 * FNV-1a here); the shared loop, once several programs have run, gets a generic dispatch that keeps
 * every case and spills its operands to the stack (≈3.3 ns; docs/interpreter.md, section 6).
 *
 * <p>Nothing is generated: the copy is byte for byte the interpreter's loop, and the program stays
 * data that it reads. A copy starts cold (run by the JVM's own bytecode interpreter until HotSpot
 * compiles it), so a program gets one only once it has run {@link #AFTER_RUNS} times on the shared
 * loop ({@code -Dbpf4j.interp.ownLoopAfter=N}; 0 turns copies off). A copy is unloaded with its
 * program.
 */
final class OwnLoops {
    private OwnLoops() {}

    /** Runs on the shared loop before a program gets its own; 0 or less: never. */
    static final int AFTER_RUNS = Integer.getInteger("bpf4j.interp.ownLoopAfter", 256);

    private static final byte[] HOT_LOOP = classFile();

    private static byte[] classFile() {
        try (InputStream in = HotLoop.class.getResourceAsStream(HotLoop.class.getSimpleName() + ".class")) {
            if (in == null) throw new IllegalStateException("HotLoop.class not found");
            return in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read HotLoop.class", e);
        }
    }

    /** A fresh copy of {@link HotLoop} for {@code code}, with its own profile and compiled code. */
    static DispatchLoop define(long[] code) {
        try {
            MethodHandles.Lookup copy = MethodHandles.lookup().defineHiddenClassWithClassData(HOT_LOOP, code, true);
            return (DispatchLoop) copy.findConstructor(copy.lookupClass(), MethodType.methodType(void.class)).invoke();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("cannot define a copy of HotLoop", e);
        }
    }

    /**
     * Counts a run of {@code p} and gives it its own loop once it has run {@link #AFTER_RUNS} times.
     * Racing threads may each define a copy (one wins; all are correct). Should the JVM refuse the
     * copy, the program stays on the shared loop.
     */
    static void countRun(DecodedProgram p) {
        if (p.ownLoop != null || AFTER_RUNS <= 0 || ++p.runs < AFTER_RUNS) return;
        try {
            p.ownLoop = define(p.code);
        } catch (RuntimeException | LinkageError e) {
            p.runs = Integer.MIN_VALUE; // never try again
        }
    }
}
