package dev.bpf4j.runtime;

import java.util.List;

/**
 * A lookup by name found nothing: a program, map, global variable or engine the object or class path
 * does not have (libbpf's {@code -ENOENT}, cilium's {@code ErrNotExist}). A {@link BpfException}, so one
 * {@code catch (BpfException e)} covers every error of the API; the message lists what does exist.
 */
public final class BpfNotFoundException extends BpfException {
    private final String kind;
    private final String name;
    private final List<String> available;

    /**
     * @param kind      what was looked up ("program", "map", "global variable", "engine")
     * @param name      the name asked for
     * @param available the names that exist, in their natural order
     * @param message   the full message
     */
    public BpfNotFoundException(String kind, String name, List<String> available, String message) {
        super(message);
        this.kind = kind;
        this.name = name;
        this.available = List.copyOf(available);
    }

    /** What was looked up: "program", "map", "global variable" or "engine". */
    public String kind() { return kind; }

    /** The name that was not found. */
    public String name() { return name; }

    /** The names that do exist. */
    public List<String> available() { return available; }
}
