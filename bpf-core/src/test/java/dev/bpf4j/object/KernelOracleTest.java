package dev.bpf4j.object;

import dev.bpf4j.btf.BtfType;
import dev.bpf4j.unwind.ExternalTool;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * libbpf as the oracle: {@code bpftool prog loadall} opens and loads each fixture into the running
 * kernel, and every program it loaded must match our spec: its type, and the maps it uses (name as
 * the kernel truncates it, type, key and value size, max_entries and flags, including libbpf's
 * internal map names and BPF_F_MMAPABLE / BPF_F_RDONLY_PROG). Skips without root, bpftool or bpffs.
 * The installed bpftool may use an older libbpf than the one we follow; the differences are noted
 * where they are tolerated.
 */
class KernelOracleTest {
    /** Fixtures libbpf loads (legacy maps are refused by libbpf 1.x, tracing needs attach targets, shared_subprog has an unloaded "?tc" program bpftool cannot pin). */
    private static final String[] LOADABLE = {"xdp_multi", "subprog", "btf_maps", "globals", "callbacks", "core_reloc"};
    private static final Path BPFFS = Path.of("/sys/fs/bpf");

    private record Result(int exit, String out) {}

    /** Runs bpftool; exit -1 when it did not finish within a minute, IOException when it is not installed. */
    private static Result run(String... cmd) throws IOException {
        ExternalTool.Result r = ExternalTool.tryRun(null, Duration.ofSeconds(60), List.of(cmd))
                .orElseThrow(() -> new IOException(cmd[0] + " cannot be started"));
        return new Result(r.status(), r.output());
    }

    private static boolean available() throws IOException, InterruptedException {
        if (!"root".equals(System.getProperty("user.name"))) return false;
        if (!Files.isDirectory(BPFFS) || !Files.readString(Path.of("/proc/mounts")).contains(" /sys/fs/bpf bpf ")) return false;
        try {
            return run("bpftool", "version").exit() == 0;
        } catch (IOException e) {
            return false;
        }
    }

    private static String field(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\":(\"[^\"]*\"|[0-9]+)").matcher(json);
        if (!m.find()) throw new AssertionError("no " + name + " in " + json);
        return m.group(1).replace("\"", "");
    }

    private static List<Integer> mapIds(String json) {
        Matcher m = Pattern.compile("\"map_ids\":\\[([0-9,]*)]").matcher(json);
        List<Integer> ids = new ArrayList<>();
        if (m.find() && !m.group(1).isEmpty()) for (String s : m.group(1).split(",")) ids.add(Integer.parseInt(s));
        return ids;
    }

    private static String kernelName(String name) { return name.length() > 15 ? name.substring(0, 15) : name; }

    @Test
    void libbpfLoadsWhatWeParsed() throws Exception {
        assumeTrue(available(), "needs root, bpftool and bpffs at /sys/fs/bpf: skipping the kernel oracle");
        int checked = 0, expected = 0;
        for (String fixture : LOADABLE) {
            BpfObjectSpec spec = Fixtures.spec(fixture);
            expected += spec.programs().size();
            // btf_maps pins 'percpu' by name under /sys/fs/bpf: never touch a pin someone else made.
            List<Path> namePins = new ArrayList<>();
            for (MapSpec m : spec.maps()) if (m.pinning() == Pinning.BY_NAME) namePins.add(BPFFS.resolve(m.name()));
            if (namePins.stream().anyMatch(Files::exists)) {
                expected -= spec.programs().size();
                continue;
            }
            Path dir = BPFFS.resolve("bpf4j-elf-test-" + ProcessHandle.current().pid() + "-" + fixture);
            Files.createDirectories(dir);
            try {
                Result load = run("bpftool", "prog", "loadall", Fixtures.path(fixture).toString(), dir.toString());
                assertThat(load.exit()).as("bpftool prog loadall %s:%n%s", fixture, load.out()).isZero();
                Set<String> pinned = new TreeSet<>();
                try (Stream<Path> files = Files.list(dir)) {
                    files.forEach(f -> pinned.add(f.getFileName().toString()));
                }
                assertThat(pinned).as("programs of %s", fixture)
                        .isEqualTo(new TreeSet<>(spec.programs().stream().map(ProgramSpec::name).toList()));
                for (ProgramSpec prog : spec.programs()) {
                    checkProgram(spec, prog, dir.resolve(prog.name()));
                    checked++;
                }
            } finally {
                try (Stream<Path> files = Files.walk(dir)) {
                    for (Path f : files.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(f);
                }
                for (Path pin : namePins) Files.deleteIfExists(pin);
            }
        }
        assertThat(checked).as("programs compared with the kernel").isEqualTo(expected).isPositive();
    }

    /** libbpf fixes up DATASEC sizes, variable offsets and extern linkage before giving BTF to the kernel: so must we. */
    private static void checkDatasecs(BpfObjectSpec spec, int btfId) throws Exception {
        Result dump = run("bpftool", "btf", "dump", "id", String.valueOf(btfId));
        assertThat(dump.exit()).as(dump.out()).isZero();
        Matcher sec = Pattern.compile("^\\[(\\d+)] DATASEC '([^']*)' size=(\\d+) vlen=\\d+$((?:\\n\\t.*)*)", Pattern.MULTILINE).matcher(dump.out());
        int seen = 0;
        while (sec.find()) {
            seen++;
            BtfType.Datasec ours = (BtfType.Datasec) spec.btf().type(Integer.parseInt(sec.group(1)));
            assertThat(ours.name()).isEqualTo(sec.group(2));
            assertThat(ours.size()).as("size of DATASEC %s", ours.name()).isEqualTo(Long.parseLong(sec.group(3)));
            List<String> kernelVars = new ArrayList<>();
            Matcher v = Pattern.compile("type_id=(\\d+) offset=(\\d+) size=(\\d+)").matcher(sec.group(4));
            while (v.find()) kernelVars.add(v.group(1) + "@" + v.group(2) + ":" + v.group(3));
            assertThat(ours.vars()).extracting(x -> x.type() + "@" + x.offset() + ":" + x.size()).as("variables of DATASEC %s", ours.name())
                    .containsExactlyElementsOf(kernelVars);
            for (BtfType.VarSecinfo x : ours.vars()) {
                if (spec.btf().type(x.type()) instanceof BtfType.Var var) {
                    assertThat(dump.out()).contains("[" + x.type() + "] VAR '" + var.name() + "' type_id=" + var.type() + ", linkage="
                            + (var.linkage() == BtfType.Var.STATIC ? "static" : var.linkage() == BtfType.Var.GLOBAL ? "global" : "extern"));
                }
            }
        }
        assertThat(seen).as("DATASECs in kernel BTF %d", btfId).isPositive();
    }

    private static void checkProgram(BpfObjectSpec spec, ProgramSpec prog, Path pin) throws Exception {
        Result show = run("bpftool", "--json", "prog", "show", "pinned", pin.toString());
        assertThat(show.exit()).as(show.out()).isZero();
        assertThat(field(show.out(), "type")).as("type of %s", prog.name()).isEqualTo(prog.type().name().toLowerCase());
        assertThat(field(show.out(), "name")).isEqualTo(kernelName(prog.name()));
        Set<String> ours = new HashSet<>();
        for (MapReference r : prog.mapReferences()) ours.add(kernelName(r.mapName()));
        Set<String> kernel = new HashSet<>();
        for (int id : mapIds(show.out())) {
            Result map = run("bpftool", "--json", "map", "show", "id", String.valueOf(id));
            assertThat(map.exit()).as(map.out()).isZero();
            String name = field(map.out(), "name");
            kernel.add(name);
            MapSpec m = spec.maps().stream().filter(x -> kernelName(x.name()).equals(name)).findFirst()
                    .orElseThrow(() -> new AssertionError("kernel map '" + name + "' of " + prog.name() + " is not in our spec " + spec.maps()));
            assertThat(field(map.out(), "type")).as("type of map %s", name).isEqualTo(m.type().name().toLowerCase());
            assertThat(Integer.parseInt(field(map.out(), "bytes_key"))).as("key size of %s", name).isEqualTo(m.keySize());
            assertThat(Integer.parseInt(field(map.out(), "bytes_value"))).as("value size of %s", name).isEqualTo(m.valueSize());
            assertThat(Integer.parseInt(field(map.out(), "max_entries"))).as("max_entries of %s", name).isEqualTo(m.maxEntries());
            int flags = Integer.parseInt(field(map.out(), "flags"));
            // libbpf before 1.3 made every internal map mmapable; since then only those whose DATASEC
            // has a global variable (so not .rodata.str1.1). We follow current libbpf.
            int mask = m.isInternal() && m.valueTypeId() == 0 ? ~MapSpec.BPF_F_MMAPABLE : ~0;
            assertThat(flags & mask).as("flags of %s", name).isEqualTo(m.flags() & mask);
        }
        // libbpf also binds the object's .rodata map to every program it loads (BPF_PROG_BIND_MAP),
        // so the kernel may list it for programs that never reference it.
        Set<String> extra = new HashSet<>(kernel);
        extra.removeAll(ours);
        extra.removeIf(n -> spec.maps().stream().anyMatch(m -> kernelName(m.name()).equals(n) && m.section().startsWith(".rodata")));
        assertThat(kernel).as("maps used by %s", prog.name()).containsAll(ours);
        if (spec.btf() != null) checkDatasecs(spec, Integer.parseInt(field(show.out(), "btf_id")));
        assertThat(extra).as("maps the kernel lists for %s that it does not reference", prog.name()).isEmpty();
    }
}
