package dev.bpf4j.unwind.profile;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A node of the merged call tree a flame graph draws: a frame, its samples, its callees. */
final class FlameNode {
    final String name;
    long value;
    private final Map<String, FlameNode> children = new LinkedHashMap<>();

    FlameNode(String name) { this.name = name; }

    /** The tree of {@code stacks} under a root named {@code rootName}. */
    static FlameNode of(FoldedStacks stacks, String rootName) {
        FlameNode root = new FlameNode(rootName);
        for (Map.Entry<List<String>, Long> e : stacks.counts().entrySet()) {
            root.value += e.getValue();
            FlameNode n = root;
            for (String frame : e.getKey()) {
                n = n.children.computeIfAbsent(frame, FlameNode::new);
                n.value += e.getValue();
            }
        }
        return root;
    }

    /** Callees in name order, so the same profile always draws the same picture. */
    List<FlameNode> children() {
        List<FlameNode> c = new ArrayList<>(children.values());
        c.sort((a, b) -> a.name.compareTo(b.name));
        return c;
    }

    int depth() {
        int d = 0;
        for (FlameNode c : children.values()) d = Math.max(d, c.depth());
        return d + 1;
    }
}
