package dev.bpf4j.verifier;

import dev.bpf4j.runtime.Limits;
import dev.bpf4j.runtime.MapShapes;

import java.util.List;

/**
 * A helper call's arguments against its {@link HelperProto} ({@code check_func_arg}): each one
 * initialised and of an accepted type, memory arguments on the stack inside their frame (and the
 * bytes a helper writes marked written), sizes bounded, callbacks found. A plain number where a
 * pointer is expected is left to the helper, which checks it against the run's regions in both
 * engines alike (Linux rejects it; docs/verifier.md).
 */
final class HelperArgs {
    /** What the call's checks found out for its result and callbacks. */
    record Checked(String helper, int callback, long mapValueSize, long mapTarget, RegState[] argsAtCall) {
        /** r1-r5 of a callback frame (index 1-5), as the kernel sets them for bpf_loop and bpf_for_each_map_elem. */
        RegState[] callbackArgs(VerifierState st) {
            RegState[] a = new RegState[6];
            for (int r = 1; r <= 5; r++) a[r] = RegState.notInit();
            if (helper.equals("bpf_loop")) {
                a[1] = RegState.unknown();
                a[1].setVar(0, 1L << 23); // the index, below BPF_MAX_LOOPS
                a[2] = argsAtCall[3].copy();
            } else if (helper.equals("bpf_find_vma")) { // bpf_find_vma(task, addr, cb, ctx, flags): cb(task, vma, ctx)
                a[1] = argsAtCall[1].copy();
                a[2] = RegState.pointer(RegType.PTR_TO_BTF_ID, 0);
                a[2].target = BtfObject.VM_AREA_STRUCT.ordinal();
                a[3] = argsAtCall[4].copy();
            } else { // bpf_for_each_map_elem(map, cb, ctx, flags): cb(map, key, value, ctx)
                a[1] = argsAtCall[1].copy();
                a[2] = RegState.pointer(RegType.PTR_TO_MEM, 0);
                a[3] = RegState.pointer(RegType.PTR_TO_MAP_VALUE, 0);
                a[3].memSize = mapValueSize;
                a[4] = argsAtCall[3].copy();
            }
            return a;
        }
    }

    private final Reject reject;
    private final VerifierPolicy policy;
    private final MemoryAccess memory;
    private final InsnAuxRecorder aux;

    HelperArgs(Reject reject, VerifierPolicy policy, MemoryAccess memory, InsnAuxRecorder aux) {
        this.reject = reject;
        this.policy = policy;
        this.memory = memory;
        this.aux = aux;
    }

    Checked check(VerifierState st, int pc, String helper, HelperProto proto) {
        RegState[] regs = st.cur().regs;
        RegState[] atCall = new RegState[6];
        int callback = -1;
        List<HelperProto.Arg> args = proto.args();
        for (int i = 0; i < args.size(); i++) {
            int r = i + 1;
            HelperProto.Arg arg = args.get(i);
            RegState v = regs[r];
            atCall[r] = v.copy();
            if (arg == HelperProto.Arg.ANY_OR_UNSET) {
                if (v.type == RegType.PTR_TO_STACK) clobberFrom(st, v); // an unknown helper may write anywhere above it
                continue;
            }
            if (v.type == RegType.NOT_INIT) {
                throw reject.at(pc, "R" + r + " !read_ok (" + helper + " takes " + args.size() + " argument"
                        + (args.size() == 1 ? "" : "s") + "; calls clobber r1-r5)");
            }
            switch (arg) {
                case ANYTHING: break;
                case SCALAR:
                    if (v.type.isPointer()) throw typeError(pc, r, v, helper, "scalar");
                    break;
                case CONST_MAP_PTR:
                    // an inner map a map-in-map lookup returned is a map pointer too (Linux types it so)
                    if (v.type != RegType.PTR_TO_MAP_VALUE) expect(pc, r, v, helper, "map_ptr", RegType.CONST_PTR_TO_MAP);
                    break;
                case PTR_TO_CTX:
                    expect(pc, r, v, helper, "ctx", RegType.PTR_TO_CTX);
                    if (v.type == RegType.PTR_TO_CTX && (v.off != 0 || !v.isConst() || v.smin != 0)) {
                        throw reject.at(pc, "dereference of modified ctx ptr R" + r + " off=" + v.off + " disallowed");
                    }
                    break;
                case PTR_TO_FUNC:
                    if (v.type != RegType.PTR_TO_FUNC) throw typeError(pc, r, v, helper, "func");
                    callback = (int) v.target;
                    break;
                case PTR_TO_STACK_OR_NULL:
                    // Linux takes only the stack here; bpf4j passes any non-null pointer through to the callback, typed
                    if (v.type.maybeNull() || !(v.type.isMemory() || v.type == RegType.SCALAR)) {
                        throw typeError(pc, r, v, helper, "fp or NULL");
                    }
                    break;
                case PTR_TO_ALLOC_MEM: // ARG_PTR_TO_RINGBUF_MEM | OBJ_RELEASE: the reservation itself, still held
                    if (v.type != RegType.PTR_TO_MEM) throw typeError(pc, r, v, helper, "ringbuf_mem");
                    if (v.off != 0 || (v.isConst() && v.smin != 0)) { // check_func_arg_reg_off
                        throw reject.at(pc, "R" + r + " must have zero offset when passed to release func or trusted arg to kfunc");
                    }
                    if (!v.isConst()) throw reject.at(pc, "variable ringbuf_mem access var_off=" + v.tnum + " disallowed");
                    if (!st.holds(v.id)) throw reject.at(pc, "R" + r + " must be referenced when passed to release function");
                    break;
                case PTR_TO_SPIN_LOCK:
                    expect(pc, r, v, helper, "map_value", RegType.PTR_TO_MAP_VALUE);
                    break;
                case PTR_TO_MAP_KEY: case PTR_TO_MAP_VALUE: case PTR_TO_UNINIT_MAP_VALUE:
                    if (v.type == RegType.PTR_TO_STACK && knownMapArgSize(atCall[1], arg == HelperProto.Arg.PTR_TO_MAP_KEY) == 0) {
                        throw reject.at(pc, "invalid zero-sized read"); // a ring buffer's key (check_stack_range_initialized)
                    }
                    memoryArg(st, pc, r, v, helper, mapArgSize(atCall[1], arg == HelperProto.Arg.PTR_TO_MAP_KEY),
                            arg == HelperProto.Arg.PTR_TO_UNINIT_MAP_VALUE);
                    break;
                case PTR_TO_MEM: case PTR_TO_UNINIT_MEM: {
                    RegState size = regs[r + 1];
                    long len = sizeArg(pc, r + 1, size, args.get(i + 1) == HelperProto.Arg.CONST_SIZE_OR_ZERO);
                    if (len > 0) memoryArg(st, pc, r, v, helper, len, arg == HelperProto.Arg.PTR_TO_UNINIT_MEM);
                    break;
                }
                case PTR_TO_BTF_ID_TASK:
                    // a plain number is left to the helper, which takes only the task bpf_get_current_task_btf returned
                    if (v.type == RegType.SCALAR) break;
                    if (v.type != RegType.PTR_TO_BTF_ID) throw typeError(pc, r, v, helper, "ptr_, trusted_ptr_, rcu_ptr_");
                    if (BtfObject.of(v.target) != BtfObject.TASK_STRUCT) {
                        throw reject.at(pc, "R" + r + " is of type " + BtfObject.of(v.target).structName + " but task_struct is expected");
                    }
                    if (v.off != 0 || !v.isConst() || v.smin != 0) {
                        throw reject.at(pc, "dereference of modified ptr_ ptr R" + r + " off=" + v.off + " disallowed");
                    }
                    break;
                case PTR_TO_LONG:
                    memoryArg(st, pc, r, v, helper, 8, true);
                    break;
                case CONST_SIZE: case CONST_SIZE_OR_ZERO: break; // checked with the memory argument before it
                default: throw new IllegalStateException("argument type " + arg);
            }
        }
        aux.helperArgs(pc, regs, args.size());
        aux.callRegs(pc, regs);
        return new Checked(helper, callback, mapValueSize(atCall[1]), atCall[1] == null ? 0 : atCall[1].target, atCall);
    }

    /** The key or value size of the map in r1 when the verifier knows it (a CONST_PTR_TO_MAP), else 1 (checked by the helper). */
    /** The key or value size of the map in r1, -1 when the verifier does not know it. */
    private long knownMapArgSize(RegState map, boolean key) {
        if (map == null || map.type != RegType.CONST_PTR_TO_MAP) return -1;
        MapShapes.Shape s = policy.maps().of(map.target);
        return s == null ? -1 : key ? s.keySize() : s.valueSize();
    }

    private long mapArgSize(RegState map, boolean key) {
        if (map == null || map.type != RegType.CONST_PTR_TO_MAP) return 1;
        MapShapes.Shape s = policy.maps().of(map.target);
        long size = s == null ? -1 : key ? s.keySize() : s.valueSize();
        return size > 0 ? size : 1;
    }

    private static long mapValueSize(RegState map) {
        return map != null && map.type == RegType.CONST_PTR_TO_MAP ? map.memSize : -1;
    }

    /** A pointer of {@code want}, or a plain number (left to the helper's run-time check); any other pointer is refused. */
    private void expect(int pc, int r, RegState v, String helper, String wantName, RegType want) {
        if (v.type == want || v.type == RegType.SCALAR) {
            if (v.type.maybeNull()) throw typeError(pc, r, v, helper, wantName);
            return;
        }
        throw typeError(pc, r, v, helper, wantName);
    }

    private VerifierException typeError(int pc, int r, RegState v, String helper, String want) {
        return reject.at(pc, "R" + r + " type=" + v.type.logName + " expected=" + want + " (argument " + r + " of " + helper + ")");
    }

    private long sizeArg(int pc, int r, RegState size, boolean zeroAllowed) {
        if (size.type != RegType.SCALAR) {
            throw reject.at(pc, "R" + r + " type=" + size.type.logName + " expected=scalar (a size)");
        }
        if (size.smin < 0) throw reject.at(pc, "R" + r + " min value is negative, either use unsigned or 'var &= const'");
        if (size.umax >= MemoryAccess.MAX_VAR_OFF || size.umax < 0) {
            throw reject.at(pc, "R" + r + " unbounded memory access, use 'var &= const' or 'if (var < const)'");
        }
        if (size.umin == 0 && !zeroAllowed) {
            throw reject.at(pc, "R" + r + " invalid zero-sized read: u64=[" + size.umin + "," + size.umax + "]");
        }
        return size.umax;
    }

    /** A memory argument of {@code len} bytes; on the stack it must lie in its frame, and a write marks the bytes. */
    private void memoryArg(VerifierState st, int pc, int r, RegState v, String helper, long len, boolean writes) {
        if (v.type.maybeNull() || !(v.type.isMemory() || v.type == RegType.SCALAR)) {
            throw typeError(pc, r, v, helper, "fp, pkt, map_value or mem");
        }
        if (v.type != RegType.PTR_TO_STACK) return;
        FuncState frame = st.frames.get(v.frameno);
        long lo = memory.stackRange(frame, pc, r, v, 0, len, false, " indirect access to");
        long hi = v.off + v.smax + len;
        for (long a = lo; a < hi; a++) {
            int b = FuncState.byteIndex(a);
            if (frame.stack[b] == FuncState.STACK_SPILL && frame.spilled[b >> 3].type.isPointer() && !policy.allowPtrLeaks()) {
                throw reject.at(pc, "R" + r + " helper memory at off=" + a + " holds a spilled " + frame.spilled[b >> 3].type.logName
                        + ": leaking pointer from stack");
            }
        }
        if (writes) MemoryAccess.markMisc(frame, lo, hi - lo);
    }

    /** Everything from the pointer up to the frame's top becomes unknown bytes. */
    private static void clobberFrom(VerifierState st, RegState v) {
        long lo = Math.max(-Limits.STACK_SIZE, v.off + v.smin);
        if (lo >= 0) return;
        MemoryAccess.markMisc(st.frames.get(v.frameno), lo, -lo);
    }
}
