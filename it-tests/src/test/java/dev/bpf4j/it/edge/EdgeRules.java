package dev.bpf4j.it.edge;

import dev.bpf4j.it.edge.ApiTable.Row;
import dev.bpf4j.it.edge.ApiTable.Tier;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** The rules of the API edge, each returning what breaks it (empty when it holds). */
final class EdgeRules {
    private EdgeRules() {}

    /** Every package of the checked modules has a row naming its module, and every row of those modules a package. */
    static Set<String> unlisted(ApiTable table, List<CompiledClass> classes, Set<String> modules) {
        Map<String, String> found = new TreeMap<>();
        for (CompiledClass c : classes) found.put(c.pkg(), c.module());
        Set<String> out = new TreeSet<>();
        found.forEach((pkg, module) -> {
            Row r = table.rows().get(pkg);
            if (r == null) out.add(pkg + " (" + module + ") has no row: decide its tier");
            else if (!r.module().equals(module)) out.add(pkg + " is in " + module + ", its row says " + r.module());
        });
        for (Row r : table.rows().values()) {
            if (modules.contains(r.module()) && !found.containsKey(r.pkg())) out.add(r.pkg() + " has a row but no classes in " + r.module());
        }
        return out;
    }

    /**
     * A public type of an api package names, in its public or protected surface, only api types, but
     * for the leaks the doc lists; a listed leak that is gone is reported too (take it off the list).
     */
    static Set<String> leaks(ApiTable table, List<CompiledClass> classes) {
        Set<String> found = exposures(table, classes);
        Set<String> out = new TreeSet<>();
        for (String f : found) if (!table.knownLeaks().contains(f)) out.add(f);
        for (String k : table.knownLeaks()) if (!found.contains(k)) out.add(k + ": listed as a known leak, but it is gone");
        return out;
    }

    /** Every "api type exposes non-api type" pair in the compiled classes. */
    private static Set<String> exposures(ApiTable table, List<CompiledClass> classes) {
        Set<String> out = new TreeSet<>();
        for (CompiledClass c : classes) {
            if (!c.isPublic() || tierOf(table, c.pkg()) != Tier.API) continue;
            for (String t : c.surface()) {
                Tier tier = tierOf(table, CompiledClass.packageOf(t));
                if (tier != null && tier != Tier.API) out.add(c.name() + " exposes " + t);
            }
        }
        return out;
    }

    /** An internal package is used only by its own module and the modules its row lists. */
    static Set<String> trespasses(ApiTable table, List<CompiledClass> classes) {
        Map<String, String> firstUse = new TreeMap<>();
        for (CompiledClass c : classes) {
            for (String r : c.references()) {
                Row row = table.rows().get(CompiledClass.packageOf(r));
                if (row == null || row.tier() != Tier.INTERNAL || row.module().equals(c.module()) || row.usedBy().contains(c.module())) continue;
                firstUse.putIfAbsent(c.module() + " uses internal " + row.pkg(), " (" + c.name() + " -> " + r + ")");
            }
        }
        Set<String> out = new TreeSet<>();
        firstUse.forEach((k, v) -> out.add(k + v));
        return out;
    }

    private static Tier tierOf(ApiTable table, String pkg) {
        Row r = table.rows().get(pkg);
        return r == null ? null : r.tier();
    }

    /** Whoever reads the javadoc of an internal package is told: its package-info carries {@link #INTERNAL}. */
    static Set<String> unmarked(ApiTable table, Path root, Set<String> modules) throws IOException {
        Set<String> out = new TreeSet<>();
        for (Row r : table.rows().values()) {
            if (r.tier() != Tier.INTERNAL || !modules.contains(r.module())) continue;
            Path info = root.resolve(r.module()).resolve("src/main/java").resolve(r.pkg().replace('.', '/')).resolve("package-info.java");
            if (!Files.exists(info) || !Files.readString(info).contains(INTERNAL)) out.add(r.pkg() + ": " + root.relativize(info) + " does not say " + INTERNAL);
        }
        return out;
    }

    static final String INTERNAL = "<b>Internal, not API</b>";
}
