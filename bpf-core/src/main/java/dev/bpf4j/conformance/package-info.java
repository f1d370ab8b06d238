/**
 * The {@code .data} format of the public conformance suites ({@link dev.bpf4j.conformance.DataFile},
 * parsed by {@link dev.bpf4j.conformance.DataFileParser}) and the helpers those suites assume
 * ({@link dev.bpf4j.conformance.SuiteHelpers}); docs/conformance.md.
 *
 * <p><b>Internal, not API</b>: public only for bpf4j's own modules (the fuzzer and the CLI); it may change
 * in any release.
 */
package dev.bpf4j.conformance;
