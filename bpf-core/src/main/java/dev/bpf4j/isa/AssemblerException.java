package dev.bpf4j.isa;

import dev.bpf4j.runtime.BpfLoadException;

/** Text assembly that cannot be assembled; names the 1-based line and the offending text. */
public class AssemblerException extends BpfLoadException {
    private final int line;
    private final String text;

    public AssemblerException(int line, String text, String reason) {
        super("line " + line + ": " + reason + ": '" + text.strip() + "'");
        this.line = line;
        this.text = text;
    }

    /** The 1-based line number. */
    public int line() { return line; }

    /** The offending source line. */
    public String text() { return text; }
}
