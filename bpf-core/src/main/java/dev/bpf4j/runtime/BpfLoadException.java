package dev.bpf4j.runtime;

/** A program or object that cannot be loaded: malformed input, unknown helper, rejected by the validator. */
public class BpfLoadException extends BpfException {
    public BpfLoadException(String message) { super(message); }
    public BpfLoadException(String message, Throwable cause) { super(message, cause); }
}
