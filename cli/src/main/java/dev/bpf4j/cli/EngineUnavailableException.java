package dev.bpf4j.cli;

/** The engine asked for cannot run here (the kernel engine where bpf() is refused): printed as is, exit 2. */
public final class EngineUnavailableException extends CliException {
    public EngineUnavailableException(String message) { super(message); }
}
