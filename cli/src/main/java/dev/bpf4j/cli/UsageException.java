package dev.bpf4j.cli;

/** Bad command-line arguments: printed with the command's usage, exit 2. */
public final class UsageException extends CliException {
    public UsageException(String message) { super(message); }
}
