package dev.bpf4j.elf;

/**
 * A malformed or unsupported ELF file. The message names the phase ("load sections: ...") and the
 * offending section or symbol; callers that load BPF objects rewrap it with the same message.
 */
public class ElfFormatException extends RuntimeException {
    public ElfFormatException(String message) { super(message); }

    public ElfFormatException(String message, Throwable cause) { super(message, cause); }
}
