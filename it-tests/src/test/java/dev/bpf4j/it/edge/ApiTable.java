package dev.bpf4j.it.edge;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The package table of docs/architecture.md ("The API edge"): each package's module, its tier and,
 * for an internal package, the other modules that may use it; and the api types the doc owns up to
 * exposing a non-api type (its "known leaks"). The doc is the one place the edge is written; this
 * reads it back.
 */
record ApiTable(Map<String, Row> rows, Set<String> knownLeaks) {

    enum Tier { API, SPI, INTERNAL }

    /** One row: {@code usedBy} names the modules besides {@code module} that may use an internal package. */
    record Row(String pkg, String module, Tier tier, Set<String> usedBy) {}

    /** A row: | `dev.bpf4j.x` | `module` | api/spi/internal | `m1`, `m2` or — | */
    private static final Pattern ROW = Pattern.compile(
            "^\\| `(dev\\.bpf4j[a-z0-9.]*)` \\| `([a-z0-9-]+)` \\| (api|spi|internal) \\| ([^|]*)\\|");

    static ApiTable read(Path markdown) throws IOException {
        return parse(Files.readString(markdown));
    }

    /** A debt the doc owns up to: {@code * `dev.bpf4j.a.Api` exposes `dev.bpf4j.b.Impl`}. */
    private static final Pattern LEAK = Pattern.compile("^\\s*\\* `(dev\\.bpf4j[\\w.$]*)` exposes `(dev\\.bpf4j[\\w.$]*)`");

    static ApiTable parse(String markdown) {
        Map<String, Row> rows = new TreeMap<>();
        Set<String> leaks = new TreeSet<>();
        for (String line : markdown.split("\n")) {
            Matcher l = LEAK.matcher(line);
            if (l.find()) leaks.add(l.group(1) + " exposes " + l.group(2));
            Matcher m = ROW.matcher(line);
            if (!m.find()) continue;
            Set<String> usedBy = Arrays.stream(m.group(4).split(","))
                    .map(s -> s.strip().replace("`", "")).filter(s -> !s.isEmpty() && !s.equals("—"))
                    .collect(Collectors.toCollection(TreeSet::new));
            Row r = new Row(m.group(1), m.group(2), Tier.valueOf(m.group(3).toUpperCase()), usedBy);
            if (rows.put(r.pkg(), r) != null) throw new IllegalStateException("package listed twice: " + r.pkg());
        }
        return new ApiTable(rows, leaks);
    }

    Tier tier(String pkg) { return rows.get(pkg).tier(); }
}
