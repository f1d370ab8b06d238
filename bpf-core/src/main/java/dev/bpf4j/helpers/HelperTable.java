package dev.bpf4j.helpers;

import dev.bpf4j.maps.MapTable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.HelperSpec;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Every Linux helper id with its status in bpf4j: implemented (registered by {@link BpfHelpers}) or not,
 * with the reason from the resource {@code linux-helpers.txt}. The docs/helpers.md table and the README's
 * count line are generated here, and a test fails when the committed ones differ, so neither can drift
 * from the registry.
 */
public final class HelperTable {
    /** One Linux helper: id, kernel name without the {@code bpf_} prefix, and why bpf4j lacks it (null: implemented). */
    public record Row(int id, String name, String reasonKey) {}

    private final List<Row> rows;
    private final Map<String, String> reasons;

    private HelperTable(List<Row> rows, Map<String, String> reasons) {
        this.rows = rows;
        this.reasons = reasons;
    }

    /** The table of bpf4j's own registry ({@link BpfHelpers#registry}); fails when the resource and the registry disagree. */
    public static HelperTable current() {
        return of(BpfHelpers.registry(MapTable.of(List.of())));
    }

    /** The table for {@code registry}, checked against the resource. */
    public static HelperTable of(HelperRegistry registry) {
        Map<String, String> reasons = new LinkedHashMap<>();
        Map<Integer, String[]> linux = new TreeMap<>();
        try (InputStream in = HelperTable.class.getResourceAsStream("linux-helpers.txt")) {
            if (in == null) throw new IllegalStateException("resource dev/bpf4j/helpers/linux-helpers.txt is missing");
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line; (line = r.readLine()) != null; ) {
                if (line.startsWith("# reason ")) {
                    String[] p = line.substring("# reason ".length()).trim().split("\\s+", 2);
                    reasons.put(p[0], p[1]);
                } else if (!line.isBlank() && !line.startsWith("#")) {
                    String[] p = line.trim().split("\\s+");
                    linux.put(Integer.parseInt(p[0]), p);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Row> rows = new ArrayList<>();
        for (Map.Entry<Integer, String[]> e : linux.entrySet()) {
            int id = e.getKey();
            String name = e.getValue()[1];
            String reason = e.getValue().length > 2 ? e.getValue()[2] : null;
            HelperSpec spec = registry.lookup(id).orElse(null);
            if (spec != null && reason != null) {
                throw new IllegalStateException("helper " + id + " (" + name + ") is registered but linux-helpers.txt gives a reason: " + reason);
            }
            if (spec == null && reason == null) {
                throw new IllegalStateException("helper " + id + " (" + name + ") is not registered: linux-helpers.txt must say why");
            }
            if (spec != null && !spec.name().equals("bpf_" + name)) {
                throw new IllegalStateException("helper " + id + " is registered as " + spec.name() + ", Linux calls it bpf_" + name);
            }
            if (reason != null && !reasons.containsKey(reason)) throw new IllegalStateException("helper " + id + ": unknown reason " + reason);
            rows.add(new Row(id, name, reason));
        }
        for (HelperSpec h : registry.all()) {
            if (!linux.containsKey(h.id())) throw new IllegalStateException("registered helper " + h.id() + " (" + h.name() + ") is no Linux helper");
        }
        return new HelperTable(List.copyOf(rows), reasons);
    }

    public List<Row> rows() { return rows; }

    public long implemented() { return rows.stream().filter(r -> r.reasonKey() == null).count(); }

    /** Linux helpers bpf4j lacks for {@code reason} (a key of the resource). */
    public long missing(String reason) { return rows.stream().filter(r -> reason.equals(r.reasonKey())).count(); }

    /** The one README line with the counts. */
    public String readmeLine() {
        long ids = rows.stream().filter(r -> r.id() != 0).count();
        long todo = missing("todo");
        return "Helpers: " + implemented() + " of Linux 6.18's " + ids + " implemented, " + todo
                + " not yet, " + (ids - implemented() - todo) + " not applicable (they need a live kernel object; "
                + "table: [`docs/helpers.md`](docs/helpers.md)).";
    }

    /** The markdown table: counts per reason, then one row per helper id. */
    public String markdown() {
        StringBuilder b = new StringBuilder();
        b.append("| status | helpers |\n|---|---:|\n");
        b.append("| implemented | ").append(implemented()).append(" |\n");
        for (Map.Entry<String, String> e : reasons.entrySet()) {
            if (e.getKey().equals("none")) continue;
            b.append("| ").append(e.getKey().equals("todo") ? "not yet: " : "not applicable (" + e.getKey() + "): ").append(e.getValue())
                    .append(" | ").append(missing(e.getKey())).append(" |\n");
        }
        b.append("\n| id | helper | status |\n|---:|---|---|\n");
        for (Row r : rows) {
            if (r.id() == 0) continue;
            String status = r.reasonKey() == null ? "implemented"
                    : r.reasonKey().equals("todo") ? "not yet" : "not applicable (" + r.reasonKey() + ")";
            b.append("| ").append(r.id()).append(" | `bpf_").append(r.name()).append("` | ").append(status).append(" |\n");
        }
        return b.toString();
    }
}
