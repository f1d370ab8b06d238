/**
 * The {@code bpf4j conformance} runner over {@code .data} files.
 *
 * <p><b>Internal, not API</b>: public only for bpf4j's own modules; it may change in any release.
 */
package dev.bpf4j.cli.conformance;
