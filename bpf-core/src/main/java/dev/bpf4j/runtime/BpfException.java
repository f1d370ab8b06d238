package dev.bpf4j.runtime;

/** Base of every error bpf4j reports to its users. */
public class BpfException extends RuntimeException {
    public BpfException(String message) { super(message); }
    public BpfException(String message, Throwable cause) { super(message, cause); }
}
