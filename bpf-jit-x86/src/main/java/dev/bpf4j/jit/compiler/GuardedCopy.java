package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.analysis.LoadCombining;
import dev.bpf4j.runtime.PacketContext;

/**
 * The main function's second, guarded translation ({@link dev.bpf4j.analysis.RegionProof}):
 * the accesses it emits without a check ({@code unchecked[pc]}), whether the entry guard must
 * find the packet in a writable region (some proven access is a store), the byte loads it merges,
 * and where the ctx holds the packet pointers (null: the data-buffer form, r1 = data, r2 = len);
 * in the ctx form {@code ctxFields[pc]} marks the loads of data/data_end that take the values the
 * entry guard checked ({@link dev.bpf4j.analysis.RegionProof.CtxProof}).
 */
record GuardedCopy(boolean[] unchecked, boolean writable, LoadCombining.Plan combining, PacketContext ctx, byte[] ctxFields) {}
