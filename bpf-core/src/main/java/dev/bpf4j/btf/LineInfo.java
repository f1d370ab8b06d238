package dev.bpf4j.btf;

/**
 * A {@code bpf_line_info} record: instruction {@code insnIndex} comes from {@code fileName} at
 * {@code line}:{@code column}; {@code sourceLine} is the text of that line as clang recorded it.
 */
public record LineInfo(int insnIndex, String fileName, String sourceLine, int line, int column) {
    public LineInfo rebase(int newIndex) { return new LineInfo(newIndex, fileName, sourceLine, line, column); }

    /** "file.c:12:5" */
    public String location() { return fileName + ":" + line + ":" + column; }
}
