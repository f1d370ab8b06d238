package dev.bpf4j.unwind.cfi;

import dev.bpf4j.elf.ElfFormatException;

/**
 * Malformed or unsupported call-frame information in {@code .eh_frame} or {@code .eh_frame_hdr}.
 * The message names the module, the section and the byte offset of the record being read.
 */
public final class CfiFormatException extends ElfFormatException {
    public CfiFormatException(String message) { super(message); }

    public CfiFormatException(String message, Throwable cause) { super(message, cause); }

    static CfiFormatException of(String format, Object... args) { return new CfiFormatException(String.format(format, args)); }
}
