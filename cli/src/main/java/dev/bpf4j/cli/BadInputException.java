package dev.bpf4j.cli;

/**
 * Input named on the command line that is not there: a missing file, a program the object does not have.
 * Printed as {@code bpf4j CMD: message} without the usage, exit 2 (as {@code trace} does for a missing library).
 */
public final class BadInputException extends CliException {
    public BadInputException(String message) { super(message); }
}
