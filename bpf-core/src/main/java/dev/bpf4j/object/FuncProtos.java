package dev.bpf4j.object;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The helpers each program type may call ({@code program-type-helpers.txt}, Linux's
 * {@code get_func_proto} per type), by id: names resolve through {@code linux-helpers.txt}, the
 * list of every Linux helper id. Read once.
 */
final class FuncProtos {
    private FuncProtos() {}

    private static final Map<ProgramType, Set<Integer>> BY_TYPE = load();

    /** The ids {@code type} may call, or null where the table has no row. */
    static Set<Integer> of(ProgramType type) { return BY_TYPE.get(type); }

    private static Map<ProgramType, Set<Integer>> load() {
        Map<String, Integer> ids = new HashMap<>();
        for (String[] w : words("/dev/bpf4j/helpers/linux-helpers.txt")) ids.put(w[1], Integer.parseInt(w[0]));
        Map<ProgramType, Set<Integer>> out = new EnumMap<>(ProgramType.class);
        for (String[] w : words("/dev/bpf4j/object/program-type-helpers.txt")) {
            Set<Integer> set = out.computeIfAbsent(ProgramType.valueOf(w[0]), t -> new TreeSet<>());
            for (int i = 1; i < w.length; i++) {
                Integer id = ids.get(w[i]);
                if (id == null) throw new IllegalStateException("program-type-helpers.txt: " + w[0] + " names helper '" + w[i] + "', which linux-helpers.txt lacks");
                set.add(id);
            }
        }
        out.replaceAll((t, s) -> Set.copyOf(s));
        return out;
    }

    private static List<String[]> words(String resource) {
        try (InputStream in = FuncProtos.class.getResourceAsStream(resource)) {
            if (in == null) throw new IllegalStateException("resource " + resource + " is missing");
            return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).lines()
                    .filter(l -> !l.isBlank() && !l.startsWith("#")).map(l -> l.trim().split("\\s+")).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
