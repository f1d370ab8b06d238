/**
 * The JVM-bytecode engine ({@link dev.bpf4j.jvm.JvmEngine}, name {@code jvm}): each verified BPF
 * program compiled with ASM to hidden classes that HotSpot then compiles (docs/jvm-engine.md).
 * Only {@code JvmEngine} is public; it is found through {@code ServiceLoader}.
 */
package dev.bpf4j.jvm;
