/**
 * The {@code bpf4j} command line (an application over the API, {@link dev.bpf4j.cli.Main}).
 *
 * <p><b>Internal, not API</b>: public only for bpf4j's own modules; it may change in any release.
 */
package dev.bpf4j.cli;
