package dev.bpf4j.api;

import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.runtime.BpfException;
import dev.bpf4j.runtime.BpfNotFoundException;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Every lookup by name fails with a {@link BpfException} (issue 25, point 5), so one {@code catch} covers
 * the API, and says what does exist. bpf-core's tests have no engine on the class path: exactly the
 * "only bpf4j-core" set-up, whose error must name the artifact to add.
 */
class NameLookupErrorsTest {
    private static final Path OBJECTS = Path.of("..", "it-tests", "src", "test", "resources", "objects");

    private static BpfNotFoundException notFound(Runnable r) {
        return catchThrowableOfType(BpfNotFoundException.class, r::run);
    }

    @Test
    void specLookupsNameWhatExists() {
        BpfObjectSpec spec = BpfObjectSpec.read(OBJECTS.resolve("globals.o"));
        BpfNotFoundException p = notFound(() -> spec.program("nope"));
        assertThat(p).isInstanceOf(BpfException.class);
        assertThat(p.kind()).isEqualTo("program");
        assertThat(p.name()).isEqualTo("nope");
        assertThat(p.available()).isEqualTo(spec.programs().stream().map(x -> x.name()).toList()).isNotEmpty();
        assertThat(p).hasMessageContaining("has no program 'nope' (programs: " + String.join(", ", p.available()) + ")");

        BpfNotFoundException m = notFound(() -> spec.map("nope"));
        assertThat(m.kind()).isEqualTo("map");
        assertThat(m.available()).contains("globals.data", "globals.rodata", "globals.bss");

        BpfNotFoundException v = notFound(() -> spec.variable("CONFIG_HZ"));
        assertThat(v.kind()).isEqualTo("global variable");
        assertThat(v.available()).contains("counter", "threshold", "scale");
        assertThat(v).hasMessageContaining("no global variable 'CONFIG_HZ' (variables: counter, ");
    }

    @Test
    void openObjectEditsOfMissingNamesAreBpfExceptions() {
        OpenObject open = BpfObject.open(OBJECTS.resolve("globals.o"));
        assertThat(notFound(() -> open.maxEntries("nope", 4)).kind()).isEqualTo("map");
        assertThat(notFound(() -> open.program("nope", p -> p)).kind()).isEqualTo("program");
        assertThat(notFound(() -> open.variable("nope", 1)).kind()).isEqualTo("global variable");
    }

    @Test
    void aMissingEngineNamesTheArtifactToAdd() {
        assertThat(Engines.available()).as("bpf-core's tests run with no engine on the class path").isEmpty();
        for (var c : List.of(List.of("jit", "bpf4j-jit-x86"), List.of("interp", "bpf4j-interp"), List.of("kernel", "bpf4j-kernel"))) {
            BpfNotFoundException e = notFound(() -> BpfObject.open(OBJECTS.resolve("globals.o")).load(c.get(0)));
            assertThat(e.kind()).isEqualTo("engine");
            assertThat(e).hasMessage("no engine '" + c.get(0) + "' (available: []); add the dependency dev.bpf4j:" + c.get(1)
                    + " to the class path");
        }
        assertThat(notFound(() -> Engines.byName("gpu"))).hasMessageContaining("engines are interp, jit and kernel");
    }
}
