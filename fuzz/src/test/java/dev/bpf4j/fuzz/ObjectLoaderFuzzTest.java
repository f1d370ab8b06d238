package dev.bpf4j.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Jazzer harness of the object path: ELF reader, BTF and {@code .BTF.ext} parsing, CO-RE and map
 * relocation, the verifier, both engines. An input either fails to open with a {@link dev.bpf4j.runtime.BpfException}
 * naming the reason, or loads the same way on the interpreter and the JIT and runs with identical results
 * ({@link ObjectDifferential}). Replays {@code ObjectLoaderFuzzTestInputs/openLoadAndRun/} (the repository's
 * objects and every finding) in each build; {@code JAZZER_FUZZ=1 mvn -pl fuzz test -Dtest=ObjectLoaderFuzzTest}
 * fuzzes.
 */
class ObjectLoaderFuzzTest {
    private static final ObjectDifferential OBJECTS = ObjectDifferential.inProcess();

    @FuzzTest(maxDuration = "10m")
    void openLoadAndRun(byte[] elf) {
        ObjectReport r = OBJECTS.run(elf, "jazzer input of " + elf.length + " bytes");
        if (!r.agree()) throw new AssertionError(r.describe());
    }
}
