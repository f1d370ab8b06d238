package dev.bpf4j;

import dev.bpf4j.isa.Insn;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * bpf-core's packages form layers (isa → program → runtime → verifier → engine → api, with maps,
 * btf, object, helpers, stack between): no package may reach one that reaches it back. The graph is
 * read from the compiled classes (constant-pool class entries and every descriptor), as jdeps does.
 */
class PackageCyclesTest {

    @Test
    void noPackageCycleInBpfCore() throws Exception {
        Map<String, Map<String, Set<String>>> graph = packageGraph(classesDir());
        List<Set<String>> cycles = cycles(graph);
        StringBuilder why = new StringBuilder();
        for (Set<String> c : cycles)
            for (String a : c)
                for (String b : c)
                    if (graph.get(a).containsKey(b)) why.append('\n').append(a).append(" -> ").append(b).append(": ").append(graph.get(a).get(b));
        assertThat(cycles).as("package cycles in bpf-core:%s", why).isEmpty();
    }

    @Test
    void theGraphSeesRealEdgesAndTheFinderSeesACycle() throws Exception {
        Map<String, Map<String, Set<String>>> graph = packageGraph(classesDir());
        assertThat(graph.get("dev.bpf4j.engine")).containsKeys("dev.bpf4j.verifier", "dev.bpf4j.program", "dev.bpf4j.runtime");
        assertThat(graph.get("dev.bpf4j.isa")).doesNotContainKey("dev.bpf4j.engine");
        Map<String, Map<String, Set<String>>> g = new TreeMap<>();
        edge(g, "a", "b"); edge(g, "b", "c"); edge(g, "c", "a"); edge(g, "c", "d"); edge(g, "d", "e");
        assertThat(cycles(g)).containsExactly(Set.of("a", "b", "c"));
    }

    private static void edge(Map<String, Map<String, Set<String>>> g, String a, String b) {
        g.computeIfAbsent(a, k -> new TreeMap<>()).computeIfAbsent(b, k -> new TreeSet<>()).add(a + "->" + b);
        g.computeIfAbsent(b, k -> new TreeMap<>());
    }

    private static Path classesDir() throws URISyntaxException {
        return Path.of(Insn.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    /** package → package it references → the class pairs that make the edge (for the failure message). */
    static Map<String, Map<String, Set<String>>> packageGraph(Path dir) throws IOException {
        Map<String, Map<String, Set<String>>> g = new TreeMap<>();
        List<Path> files;
        try (Stream<Path> s = Files.walk(dir)) {
            files = s.filter(p -> p.toString().endsWith(".class")).toList();
        }
        for (Path f : files) {
            ClassReader cr;
            try (InputStream in = Files.newInputStream(f)) { cr = new ClassReader(in); }
            if (cr.getClassName().endsWith("module-info") || cr.getClassName().endsWith("package-info")) continue;
            String from = cr.getClassName();
            Map<String, Set<String>> out = g.computeIfAbsent(pkg(from), k -> new TreeMap<>());
            for (String to : ClassReferences.of(cr)) {
                if (!to.startsWith("dev/bpf4j/") || pkg(to).equals(pkg(from))) continue;
                if (!Files.exists(dir.resolve(to + ".class"))) continue; // another module (unwind)
                out.computeIfAbsent(pkg(to), k -> new TreeSet<>()).add(outer(from) + " -> " + outer(to));
            }
        }
        return g;
    }

    private static String pkg(String internal) { return internal.substring(0, internal.lastIndexOf('/')).replace('/', '.'); }

    private static String outer(String internal) {
        String simple = internal.substring(internal.lastIndexOf('/') + 1);
        int d = simple.indexOf('$');
        return d < 0 ? simple : simple.substring(0, d);
    }

    /** The strongly connected components with more than one package (Tarjan). */
    static List<Set<String>> cycles(Map<String, Map<String, Set<String>>> g) {
        Map<String, Integer> index = new HashMap<>(), low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new TreeSet<>();
        List<Set<String>> out = new ArrayList<>();
        for (String v : g.keySet()) if (!index.containsKey(v)) strongConnect(v, g, index, low, stack, onStack, out);
        return out;
    }

    private static void strongConnect(String v, Map<String, Map<String, Set<String>>> g, Map<String, Integer> index,
                                      Map<String, Integer> low, Deque<String> stack, Set<String> onStack, List<Set<String>> out) {
        index.put(v, index.size());
        low.put(v, index.get(v));
        stack.push(v);
        onStack.add(v);
        for (String w : g.getOrDefault(v, Map.of()).keySet()) {
            if (!index.containsKey(w)) {
                strongConnect(w, g, index, low, stack, onStack, out);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            Set<String> c = new TreeSet<>();
            String w;
            do { w = stack.pop(); onStack.remove(w); c.add(w); } while (!w.equals(v));
            if (c.size() > 1) out.add(c);
        }
    }
}
