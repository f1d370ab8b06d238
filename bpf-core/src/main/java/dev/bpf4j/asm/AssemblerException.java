package dev.bpf4j.asm;

import dev.bpf4j.runtime.BpfLoadException;

/** Text assembly that cannot be assembled; names the 1-based line and the offending text. */
public class AssemblerException extends BpfLoadException {
    private final int line;
    private final String text;
    private final String reason;

    public AssemblerException(int line, String text, String reason) {
        this(null, line, text, reason);
    }

    /** As above, naming the program (or file) the line belongs to. */
    public AssemblerException(String source, int line, String text, String reason) {
        super((source == null ? "" : source + ": ") + "line " + line + ": " + reason + ": '" + text.strip() + "'");
        this.line = line;
        this.text = text;
        this.reason = reason;
    }

    /** The same error, naming {@code source}. */
    public AssemblerException in(String source) { return new AssemblerException(source, line, text, reason); }

    /** Why the line was rejected. */
    public String reason() { return reason; }

    /** The 1-based line number. */
    public int line() { return line; }

    /** The offending source line. */
    public String text() { return text; }
}
