package dev.bpf4j.runtime;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JDK 17 ({@code src/main/java}, Unsafe) and JDK 22+ ({@code src/main/java22}, FFM) forms of
 * {@link NativeMemory} declare the same public methods: a method only one of them has compiles and
 * passes on one JDK and fails with {@code NoSuchMethodError} on the other (docs/jdk.md).
 */
class NativeMemoryVariantsTest {
    private static final Pattern METHOD = Pattern.compile("public static [\\w<>\\[\\]]+ (\\w+)\\(([^)]*)\\)");

    private static Set<String> methods(String root) throws IOException {
        String src = Files.readString(Path.of("src/main", root, "dev/bpf4j/runtime/NativeMemory.java"));
        Set<String> out = new TreeSet<>();
        Matcher m = METHOD.matcher(src);
        while (m.find()) out.add(m.group(1) + "(" + m.group(2).replaceAll("\\s+\\w+(,|$)", "$1").replace(" ", "") + ")");
        return out;
    }

    @Test
    void bothFormsDeclareTheSameMethods() throws IOException {
        Set<String> jdk17 = methods("java"), jdk22 = methods("java22");
        assertThat(jdk17).hasSizeGreaterThan(20);
        assertThat(jdk22).isEqualTo(jdk17);
    }
}
