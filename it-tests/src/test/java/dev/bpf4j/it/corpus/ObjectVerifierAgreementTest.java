package dev.bpf4j.it.corpus;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.object.ProgramSpec;
import dev.bpf4j.runtime.BpfException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * bpf4j's verifier against Linux's on every committed clang object of the repository: each program
 * of each object is loaded alone (with the programs its prog arrays name) into Linux
 * ({@code BPF_PROG_LOAD} through {@link KernelVerdict}, privileged) and through bpf4j's object API,
 * and the verdicts are printed as a table with the first error of each. bpf4j may not refuse a
 * program Linux loads; where Linux refuses what bpf4j loads, the reason is one docs/verifier.md
 * lists as a difference by design (checked at run time in bpf4j, proven at load time in Linux).
 */
class ObjectVerifierAgreementTest {
    /** Where the repository keeps its clang objects (relative to it-tests, where surefire runs). */
    static final List<Path> ROOTS = List.of(Path.of("src/test/resources/objects"), Path.of("../bench/src/main/resources/workloads"),
            Path.of("../cli/src/main/resources/dev/bpf4j/cli/trace"));

    static List<Path> objects() throws IOException {
        List<Path> out = new ArrayList<>();
        for (Path root : ROOTS) {
            if (!Files.isDirectory(root)) continue;
            try (Stream<Path> s = Files.walk(root)) {
                s.filter(p -> p.toString().endsWith(".o")).sorted().forEach(out::add);
            }
        }
        return out;
    }

    /** {@code spec} with only {@code p}, autoloaded (a {@code ?sec} program too), and the programs prog arrays name. */
    static BpfObjectSpec only(BpfObjectSpec spec, ProgramSpec p) {
        List<ProgramSpec> kept = new ArrayList<>();
        for (ProgramSpec q : spec.programs()) {
            boolean target = spec.maps().stream().anyMatch(m -> m.type() == MapType.PROG_ARRAY && m.initialSlots().containsValue(q.name()));
            if (q.name().equals(p.name())) kept.add(q.withAutoload(true));
            else if (target) kept.add(q);
        }
        return new BpfObjectSpec(spec.name(), spec.license(), spec.kernelVersion(), kept, spec.maps(), spec.btf());
    }

    /** "" when bpf4j loads the program, else its first error. */
    static String bpf4jVerdict(BpfObjectSpec spec) {
        try (BpfObject o = BpfObject.open(spec).load("interp")) {
            return "";
        } catch (BpfException e) {
            return "rejected: " + e.getMessage().lines().findFirst().orElse("");
        }
    }

    /**
     * Helpers bpf4j does not have because a JVM process has nothing they could return
     * (docs/helpers.md): {@code bpf_get_current_task} (35) hands out the kernel's task_struct.
     */
    static final java.util.Set<Integer> MISSING_BY_DESIGN = java.util.Set.of(35);

    static boolean missingByDesign(String bpf4jError) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("unknown helper id (\\d+)").matcher(bpf4jError);
        return m.find() && MISSING_BY_DESIGN.contains(Integer.parseInt(m.group(1)));
    }

    @Test
    void bpf4jLoadsEveryObjectProgramLinuxLoads() throws IOException {
        assumeTrue(KernelSide.onClassPath(), "bpf4j-kernel is not on this surefire execution's class path (see it-tests/pom.xml)");
        String refused = KernelSide.unavailableReason();
        assumeTrue(refused == null, () -> "bpf() is not permitted here: " + refused);
        Map<String, Integer> table = new TreeMap<>();
        List<String> rows = new ArrayList<>(), onlyBpf4j = new ArrayList<>();
        int objects = 0;
        for (Path file : objects()) {
            BpfObjectSpec spec;
            try {
                spec = BpfObjectSpec.read(file);
            } catch (BpfException e) {
                rows.add(file.getFileName() + ": not an object bpf4j opens (" + e.getMessage().lines().findFirst().orElse("") + ")");
                continue; // the fixtures of the object loader's own error tests
            }
            objects++;
            for (ProgramSpec p : spec.programs()) {
                BpfObjectSpec alone = only(spec, p);
                String linux = KernelVerdict.of(alone, p.name());
                String ours = bpf4jVerdict(alone);
                String name = file.getFileName() + ":" + p.name() + " (" + p.type() + ")";
                if (linux.startsWith("not comparable")) {
                    table.merge("not comparable (Linux cannot load the type or a map)", 1, Integer::sum);
                    rows.add(name + ": " + linux + " | bpf4j " + (ours.isEmpty() ? "accepts" : ours));
                    continue;
                }
                boolean linuxOk = linux.isEmpty(), oursOk = ours.isEmpty();
                String verdict = linuxOk && oursOk ? "both accept" : !linuxOk && !oursOk ? "both reject"
                        : oursOk ? "only Linux rejects" : "only bpf4j rejects";
                table.merge(verdict, 1, Integer::sum);
                if (!linuxOk || !oursOk) rows.add(name + ": " + verdict + " | Linux " + (linuxOk ? "accepts" : linux) + " | bpf4j "
                        + (oursOk ? "accepts" : ours));
                if (linuxOk && !oursOk && !missingByDesign(ours)) onlyBpf4j.add(name + ": " + ours);
            }
        }
        System.out.println("verifier agreement on the clang objects (" + objects + " objects):");
        System.out.println("| verdicts | programs |\n|---|---:|");
        table.forEach((k, v) -> System.out.println("| " + k + " | " + v + " |"));
        rows.forEach(r -> System.out.println("  " + r));
        assertThat(table).as("programs compared").isNotEmpty();
        assertThat(onlyBpf4j).as("programs Linux loads that bpf4j refuses").isEmpty();
    }
}
