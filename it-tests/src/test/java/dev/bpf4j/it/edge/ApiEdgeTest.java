package dev.bpf4j.it.edge;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The API edge of docs/architecture.md holds in the compiled classes: every package has a tier, the
 * public surface of an api package names only api types (but the leaks the doc lists), an internal
 * package is used only by the modules its row lists and says in its javadoc that it is internal. bench (a measuring tool, built after this module) and it-tests are not checked.
 */
class ApiEdgeTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final List<String> MODULES = List.of("elf", "unwind", "bpf-core", "bpf-interp", "bpf-jit-x86", "bpf-jvm", "bpf-kernel", "fuzz", "cli");

    private static ApiTable table;
    private static List<CompiledClass> classes;

    @BeforeAll
    static void read() throws Exception {
        table = ApiTable.read(ROOT.resolve("docs/architecture.md"));
        classes = CompiledModules.read(ROOT, MODULES);
    }

    @Test
    void everyPackageHasOneRowInTheTable() {
        assertThat(EdgeRules.unlisted(table, classes, Set.copyOf(MODULES))).as("docs/architecture.md, The API edge").isEmpty();
    }

    @Test
    void apiPackagesExposeOnlyApiTypes() {
        assertThat(EdgeRules.leaks(table, classes)).as("public API naming a type of an spi or internal package (docs/architecture.md)").isEmpty();
    }

    /**
     * No leak is allowed any more (issue 27); JitEngine, the last one, hands out {@code Executable}: its
     * surface is read (so a load returning the JIT's own executable again would be a leak) and names none
     * of the JIT's internal types.
     */
    @Test
    void noKnownLeaksAndTheJitEngineExposesOnlyExecutable() {
        assertThat(table.knownLeaks()).as("known leaks in docs/architecture.md").isEmpty();
        CompiledClass jit = classes.stream().filter(c -> c.name().equals("dev.bpf4j.jit.JitEngine")).findFirst().orElseThrow();
        assertThat(jit.surface()).contains("dev.bpf4j.runtime.Executable")
                .noneMatch(n -> table.tier(CompiledClass.packageOf(n)) == ApiTable.Tier.INTERNAL);
    }

    @Test
    void internalPackagesAreUsedOnlyWhereTheTableSays() {
        assertThat(EdgeRules.trespasses(table, classes)).as("uses of internal packages the table does not list").isEmpty();
    }

    @Test
    void internalPackagesSayItInTheirJavadoc() throws Exception {
        assertThat(EdgeRules.unmarked(table, ROOT, Set.copyOf(MODULES))).isEmpty();
    }

    @Test
    void theRulesSeeWhatBreaksThem(@TempDir Path tmp) throws Exception {
        ApiTable t = ApiTable.parse("""
                | `dev.bpf4j.a` | `m1` | api | — |
                | `dev.bpf4j.b` | `m1` | internal | `m3` |
                | `dev.bpf4j.gone` | `m1` | spi | — |
                * `dev.bpf4j.a.Old` exposes `dev.bpf4j.b.Impl`
                """);
        List<CompiledClass> cs = List.of(
                new CompiledClass("dev.bpf4j.a.Api", "m1", true, Set.of("dev.bpf4j.b.Impl"), Set.of("dev.bpf4j.b.Impl")),
                new CompiledClass("dev.bpf4j.a.Hidden", "m1", false, Set.of("dev.bpf4j.b.Impl"), Set.of()),
                new CompiledClass("dev.bpf4j.b.Impl", "m1", true, Set.of(), Set.of()),
                new CompiledClass("dev.bpf4j.c.User", "m2", true, Set.of(), Set.of("dev.bpf4j.b.Impl", "dev.bpf4j.a.Api")),
                new CompiledClass("dev.bpf4j.d.Allowed", "m3", true, Set.of(), Set.of("dev.bpf4j.b.Impl")));
        assertThat(EdgeRules.unlisted(t, cs, Set.of("m1", "m2", "m3"))).containsExactlyInAnyOrder(
                "dev.bpf4j.c (m2) has no row: decide its tier", "dev.bpf4j.d (m3) has no row: decide its tier",
                "dev.bpf4j.gone has a row but no classes in m1");
        assertThat(EdgeRules.leaks(t, cs)).containsExactly("dev.bpf4j.a.Api exposes dev.bpf4j.b.Impl",
                "dev.bpf4j.a.Old exposes dev.bpf4j.b.Impl: listed as a known leak, but it is gone");
        assertThat(EdgeRules.trespasses(t, cs)).containsExactly("m2 uses internal dev.bpf4j.b (dev.bpf4j.c.User -> dev.bpf4j.b.Impl)");
        Path info = tmp.resolve("m1/src/main/java/dev/bpf4j/b/package-info.java");
        Files.createDirectories(info.getParent());
        Files.writeString(info, "/** Implementation. */\npackage dev.bpf4j.b;\n");
        assertThat(EdgeRules.unmarked(t, tmp, Set.of("m1"))).hasSize(1);
        Files.writeString(info, "/** Implementation. " + EdgeRules.INTERNAL + " */\npackage dev.bpf4j.b;\n");
        assertThat(EdgeRules.unmarked(t, tmp, Set.of("m1"))).isEmpty();
        assertThat(table.rows()).as("the real table is read").containsKeys("dev.bpf4j.api", "dev.bpf4j.jit.compiler");
    }
}
