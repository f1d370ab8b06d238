package dev.bpf4j.conformance;

import dev.bpf4j.runtime.BpfLoadException;

/** A malformed conformance {@code .data} file: names the file, the 1-based line and the reason. */
public final class DataFileException extends BpfLoadException {
    private final String file;
    private final int line;

    public DataFileException(String file, int line, String reason) {
        super(file + (line > 0 ? ":" + line : "") + ": " + reason);
        this.file = file;
        this.line = line;
    }

    public String file() { return file; }

    /** 1-based line of the problem, or 0 when it concerns the whole file. */
    public int line() { return line; }
}
