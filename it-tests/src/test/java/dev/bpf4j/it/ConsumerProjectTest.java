package dev.bpf4j.it;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A separate Maven project ({@code src/test/resources/consumer}) that depends on bpf4j as README says —
 * the BOM imported, bpf4j-core, bpf4j-interp and bpf4j-jit-x86 without versions — built offline against a
 * private copy of the local repository into which this build's artifacts are installed, then run
 * (issue 25). Installing is done by hand, in the layout {@code mvn install} writes (each module's pom.xml
 * and jar under {@code dev/bpf4j/ARTIFACT/VERSION/}): a nested {@code mvn install} would rewrite the jars
 * this test JVM runs from. The shared {@code ~/.m2} is only read.
 */
class ConsumerProjectTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final String VERSION = "0.1.0-SNAPSHOT";
    /** Module directory, artifactId; the parent and the BOM are poms only. */
    private static final String[][] LIBRARIES = {{"elf", "bpf4j-elf"}, {"unwind", "bpf4j-unwind"}, {"bpf-core", "bpf4j-core"}, {"bpf-interp", "bpf4j-interp"},
            {"bpf-jit-x86", "bpf4j-jit-x86"}};

    @Test
    void consumerBuildsAgainstTheInstalledArtifactsAndRuns(@TempDir Path tmp) throws Exception {
        Path shared = Path.of(System.getProperty("user.home"), ".m2", "repository");
        Assumptions.assumeTrue(Files.isDirectory(shared), () -> "skipped: no local Maven repository at " + shared);
        Assumptions.assumeTrue(onPath("mvn"), "skipped: mvn is not on the PATH");
        for (String[] l : LIBRARIES) {
            Path jar = ROOT.resolve(l[0]).resolve("target").resolve(l[1] + "-" + VERSION + ".jar");
            Assumptions.assumeTrue(Files.exists(jar), () -> "skipped: " + jar + " is not built (run mvn package or verify first)");
        }
        Path repo = tmp.resolve("repository");
        copyTree(shared, repo);
        install(repo, "bpf4j-parent", ROOT.resolve("pom.xml"), null);
        install(repo, "bpf4j-bom", ROOT.resolve("bom/pom.xml"), null);
        for (String[] l : LIBRARIES) {
            install(repo, l[1], ROOT.resolve(l[0]).resolve("pom.xml"), ROOT.resolve(l[0]).resolve("target").resolve(l[1] + "-" + VERSION + ".jar"));
        }
        Path project = tmp.resolve("consumer");
        copyTree(ROOT.resolve("it-tests/src/test/resources/consumer"), project);
        Path cp = tmp.resolve("classpath.txt");
        run(project, List.of("mvn", "-o", "-B", "-ntp", "-q", "-Dmaven.repo.local=" + repo, "compile", "dependency:build-classpath",
                "-Dmdep.outputFile=" + cp));
        String classpath = project.resolve("target/classes") + File.pathSeparator + Files.readString(cp).strip();
        assertThat(classpath).contains(repo.resolve("dev/bpf4j/bpf4j-core").toString()).doesNotContain(ROOT.resolve("bpf-core").toString());
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String out = run(project, List.of(java, "-cp", classpath, "example.Consumer",
                ROOT.resolve("it-tests/src/test/resources/objects/corpus/xdp_proto_count.o").toString(), ROOT.resolve("examples/pkt.bin").toString()));
        assertThat(out.lines()).contains(
                "interp: retval 2, packets 1, bytes 64",
                "interp: object 'xdp_proto_count' has no map 'nope' (maps: proto_counts)",
                "jit: retval 2, packets 1, bytes 64",
                "jit: object 'xdp_proto_count' has no map 'nope' (maps: proto_counts)",
                "kernel: no engine 'kernel' (available: [interp, jit]); add the dependency dev.bpf4j:bpf4j-kernel to the class path");
    }

    /** What {@code mvn install} puts in a local repository for one artifact: its pom, and its jar when it has one. */
    private static void install(Path repo, String artifactId, Path pom, Path jar) throws IOException {
        Path dir = repo.resolve("dev/bpf4j").resolve(artifactId).resolve(VERSION);
        Files.createDirectories(dir);
        Files.copy(pom, dir.resolve(artifactId + "-" + VERSION + ".pom"), StandardCopyOption.REPLACE_EXISTING);
        if (jar != null) Files.copy(jar, dir.resolve(artifactId + "-" + VERSION + ".jar"), StandardCopyOption.REPLACE_EXISTING);
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> all = Files.walk(from)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(target);
                else if (Files.isRegularFile(p)) Files.copy(p, target);
            }
        }
    }

    private static String run(Path dir, List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(new ArrayList<>(cmd)).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(10, TimeUnit.MINUTES)).as("finished: " + cmd).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", cmd) + "\n" + out).isZero();
        return out;
    }

    private static boolean onPath(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(d, tool))) return true;
        }
        return false;
    }
}
