package dev.bpf4j.unwind.profile;

import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A self-contained flame graph page (no network resources): an SVG drawn here, root at the bottom,
 * one rectangle per frame of the merged call tree, its width the share of samples, each with a
 * {@code <title>} tooltip {@code name (N samples, P%)}; a little inline script zooms into a frame on
 * click (or the widest one named by {@code #zoom=NAME} in the address) and highlights frames matching a search. Frames narrower than {@link #MIN_WIDTH_PX} at full
 * width are left out, as flamegraph.pl does.
 */
public final class FlameGraphHtml {
    private FlameGraphHtml() {}

    static final int WIDTH = 1200;
    static final int FRAME_HEIGHT = 17;
    static final double MIN_WIDTH_PX = 0.1;
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$(TITLE|SUMMARY|WIDTH|HEIGHT|FRAMES|EMPTY)");
    private static final int PAD_TOP = 40, PAD_BOTTOM = 20, PAD_SIDE = 10;

    public static String render(FoldedStacks stacks, String title) {
        FlameNode root = FlameNode.of(stacks, "all");
        int depth = root.depth();
        int height = PAD_TOP + depth * FRAME_HEIGHT + PAD_BOTTOM;
        StringBuilder svg = new StringBuilder();
        if (root.value > 0) draw(svg, root, 0, 0, root.value, height - PAD_BOTTOM);
        Map<String, String> values = Map.of(
                "TITLE", escape(title),
                "SUMMARY", root.value + " samples, " + stacks.counts().size() + " distinct stacks",
                "WIDTH", Integer.toString(WIDTH + 2 * PAD_SIDE),
                "HEIGHT", Integer.toString(height),
                "FRAMES", svg.toString(),
                "EMPTY", root.value == 0 ? "<p>No samples.</p>" : "");
        // One pass, so a frame or title that contains "$WIDTH" is left as it is.
        Matcher m = PLACEHOLDER.matcher(PAGE);
        StringBuilder page = new StringBuilder();
        while (m.find()) m.appendReplacement(page, Matcher.quoteReplacement(values.get(m.group(1))));
        m.appendTail(page);
        return page.toString();
    }

    /** Draws {@code n} at depth {@code level}, starting {@code before} samples from the left. */
    private static void draw(StringBuilder out, FlameNode n, int level, long before, long total, int bottom) {
        double x = (double) before / total, w = (double) n.value / total;
        if (w * WIDTH < MIN_WIDTH_PX) return;
        double y = bottom - (level + 1) * FRAME_HEIGHT;
        String pct = String.format(Locale.ROOT, "%.2f", 100.0 * n.value / total);
        out.append(String.format(Locale.ROOT,
                "<g class=\"f\" data-x=\"%.6f\" data-w=\"%.6f\" data-d=\"%d\"><title>%s (%d samples, %s%%)</title>"
                        + "<rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%d\" fill=\"%s\" rx=\"2\"/>"
                        + "<text x=\"%.1f\" y=\"%.0f\"></text></g>\n",
                x, w, level, escape(n.name), n.value, pct,
                PAD_SIDE + x * WIDTH, y, w * WIDTH, FRAME_HEIGHT - 1, color(n.name),
                PAD_SIDE + x * WIDTH + 3, y + FRAME_HEIGHT - 5));
        long at = before;
        for (FlameNode c : n.children()) {
            draw(out, c, level + 1, at, total, bottom);
            at += c.value;
        }
    }

    /** JIT code aqua, [unknown]/[module] grey, Java frames green, other native code warm (hue from the name). */
    static String color(String name) {
        int h = Math.abs(name.hashCode() % 1000);
        if (name.startsWith("bpf_prog_")) return String.format("rgb(%d,%d,%d)", 60 + h % 40, 190 + h % 50, 200 + h % 40);
        if (name.startsWith("[")) return String.format("rgb(%d,%d,%d)", 180 + h % 30, 180 + h % 30, 180 + h % 30);
        if (name.contains(".") && !name.contains(".so")) return String.format("rgb(%d,%d,%d)", 80 + h % 60, 190 + h % 50, 80 + h % 40);
        return String.format("rgb(%d,%d,%d)", 225 + h % 30, 80 + h % 120, 40 + h % 40);
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    private static final String PAGE = """
            <!DOCTYPE html>
            <html><head><meta charset="utf-8"><title>$TITLE</title>
            <style>
            body { font-family: sans-serif; margin: 8px; }
            svg { font: 12px monospace; }
            g.f rect { stroke: #fff; stroke-width: 0.5; cursor: pointer; }
            g.f text { pointer-events: none; fill: #000; }
            g.f.hit rect { fill: rgb(230,0,230) !important; }
            #bar { margin: 4px 0; }
            </style></head>
            <body>
            <h3>$TITLE</h3>
            <div id="bar">$SUMMARY &middot; click a frame to zoom, <a href="#" id="reset">reset zoom</a> &middot;
            search <input id="q" size="30" placeholder="regex"> <span id="matched"></span></div>
            $EMPTY
            <svg id="flame" width="$WIDTH" height="$HEIGHT">
            $FRAMES</svg>
            <div id="details">&nbsp;</div>
            <script>
            (function () {
              var W = 1200, PAD = 10, CHAR = 7.2;
              var frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));
              function name(g) { return g.querySelector('title').textContent.replace(/ \\([0-9]+ samples, [0-9.]+%\\)$/, ''); }
              function layout(zx, zw, zd) {
                frames.forEach(function (g) {
                  var x = +g.dataset.x, w = +g.dataset.w, d = +g.dataset.d;
                  var inside = x >= zx - 1e-9 && x + w <= zx + zw + 1e-9;
                  var ancestor = d < zd && x <= zx + 1e-9 && x + w >= zx + zw - 1e-9;
                  var show = (inside && d >= zd) || ancestor;
                  g.style.display = show ? '' : 'none';
                  if (!show) return;
                  var px = ancestor ? 0 : (x - zx) / zw * W, pw = ancestor ? W : w / zw * W;
                  var r = g.querySelector('rect'), t = g.querySelector('text');
                  r.setAttribute('x', PAD + px); r.setAttribute('width', pw);
                  t.setAttribute('x', PAD + px + 3);
                  var n = name(g), fit = Math.floor((pw - 6) / CHAR);
                  t.textContent = fit < 3 ? '' : (n.length <= fit ? n : n.substring(0, fit - 2) + '..');
                });
              }
              frames.forEach(function (g) {
                g.addEventListener('click', function () { layout(+g.dataset.x, +g.dataset.w, +g.dataset.d); });
                g.addEventListener('mouseover', function () { document.getElementById('details').textContent = g.querySelector('title').textContent; });
              });
              document.getElementById('reset').addEventListener('click', function (e) { e.preventDefault(); layout(0, 1, 0); });
              document.getElementById('q').addEventListener('input', function (e) {
                var re = null, n = 0;
                try { re = e.target.value ? new RegExp(e.target.value) : null; } catch (err) { re = null; }
                frames.forEach(function (g) { var m = re !== null && re.test(name(g)); g.classList.toggle('hit', m); if (m) n++; });
                document.getElementById('matched').textContent = re ? n + ' frames match' : '';
              });
              layout(0, 1, 0);
              // #zoom=NAME opens the page zoomed into the widest frame called NAME (a link to a view).
              var z = /^#zoom=(.+)$/.exec(location.hash);
              if (z) {
                var want = decodeURIComponent(z[1]), hit = null;
                frames.forEach(function (g) { if (name(g) === want && (hit === null || +g.dataset.w > +hit.dataset.w)) hit = g; });
                if (hit) layout(+hit.dataset.x, +hit.dataset.w, +hit.dataset.d);
              }
            })();
            </script>
            </body></html>
            """;
}
