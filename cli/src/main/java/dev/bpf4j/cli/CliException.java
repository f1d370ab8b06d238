package dev.bpf4j.cli;

/** A command that cannot proceed (missing file, missing engine, ...): printed as {@code bpf4j: message}, exit 1. */
public class CliException extends RuntimeException {
    public CliException(String message) { super(message); }
    public CliException(String message, Throwable cause) { super(message, cause); }
}
