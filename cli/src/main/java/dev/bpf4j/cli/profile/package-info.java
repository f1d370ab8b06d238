/**
 * {@code bpf4j profile} and {@code bpf4j demo}: sampling sessions, workloads and their output.
 *
 * <p><b>Internal, not API</b>: public only for bpf4j's own modules; it may change in any release.
 */
package dev.bpf4j.cli.profile;
