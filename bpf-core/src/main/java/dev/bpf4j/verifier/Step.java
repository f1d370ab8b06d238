package dev.bpf4j.verifier;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.JmpOps;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.maps.Cpus;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.runtime.ReturnRange;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.HelperSpec;
import dev.bpf4j.runtime.Limits;
import dev.bpf4j.runtime.MapShapes;

import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * One instruction's effect on a {@link VerifierState} (the body of the kernel's {@code do_check}
 * loop): register reads ({@code check_reg_arg}), ALU on scalars and pointers
 * ({@code adjust_reg_min_max_vals}), conditional jumps, calls and exit. Memory accesses are
 * {@link MemoryAccess}'s, helper arguments {@link HelperArgs}'. Rejects through {@link Reject}.
 */
final class Step {
    private final Reject reject;
    private final Insn[] insns;
    private final InsnForm[] forms;
    private final HelperRegistry helpers;
    private final VerifierPolicy policy;
    private final MemoryAccess memory;
    private final HelperArgs helperArgs;
    private final InsnAuxRecorder aux;
    private int nextId = 1;

    Step(Reject reject, Insn[] insns, InsnForm[] forms, HelperRegistry helpers, VerifierPolicy policy, InsnAuxRecorder aux,
         StackDepth depths) {
        this.reject = reject;
        this.insns = insns;
        this.forms = forms;
        this.helpers = helpers;
        this.policy = policy;
        this.memory = new MemoryAccess(reject, policy, depths);
        this.helperArgs = new HelperArgs(reject, policy, memory, aux);
        this.aux = aux;
    }

    VerifierState entryState(int loopHeads) {
        FuncState main = new FuncState(0, 0, -1, false);
        for (int r = 1; r <= policy.entryArgs(); r++) main.regs[r] = RegState.unknown();
        if (policy.ctxEntry()) main.regs[1] = RegState.pointer(RegType.PTR_TO_CTX, 0);
        List<FuncState> frames = new ArrayList<>();
        frames.add(main);
        return new VerifierState(frames, 0, loopHeads);
    }

    /** Runs the instruction at {@code st.pc}; returns the state to continue with, or null when the path ended. */
    VerifierState execute(VerifierState st, Deque<VerifierState> pending) {
        int pc = st.pc;
        Insn insn = insns[pc];
        switch (forms[pc]) {
            case ALU_IMM: case ALU_REG: alu(st, pc, insn); break;
            case ALU_UNARY: unary(st, pc, insn); break;
            case JA: case JA_LONG: st.pc = (int) ControlFlow.target(pc, forms[pc], insn); return st;
            case JCOND_IMM: case JCOND_REG: return branch(st, pc, insn, pending);
            case CALL_HELPER: return helperCall(st, pc, insn.imm(), pending);
            case CALL_REG: return registerCall(st, pc, insn, pending);
            case CALL_LOCAL: return localCall(st, pc, insn);
            case EXIT: return exit(st, pc);
            case LDDW: lddw(st, pc, insn); st.pc = pc + 2; return st;
            case LD_ABS: case LD_IND: legacyPacketLoad(st, pc, insn); break;
            case LDX: {
                RegState base = read(st, pc, insn.src());
                boolean signExtend = Opcodes.mode(insn.opcode()) == Opcodes.MEMSX;
                RegState v = memory.load(st, pc, insn.src(), base, insn.off(), Opcodes.sizeBytes(insn.opcode()), signExtend);
                aux.access(pc, insn.src(), base, insn.off(), Opcodes.sizeBytes(insn.opcode()));
                st.cur().regs[insn.dst()] = v;
                break;
            }
            case ST: {
                RegState base = read(st, pc, insn.dst());
                memory.store(st, pc, insn.dst(), base, insn.off(), Opcodes.sizeBytes(insn.opcode()), RegState.constant(insn.imm()), -1);
                aux.access(pc, insn.dst(), base, insn.off(), Opcodes.sizeBytes(insn.opcode()));
                break;
            }
            case STX: {
                RegState base = read(st, pc, insn.dst());
                RegState value = read(st, pc, insn.src());
                memory.store(st, pc, insn.dst(), base, insn.off(), Opcodes.sizeBytes(insn.opcode()), value, insn.src());
                aux.access(pc, insn.dst(), base, insn.off(), Opcodes.sizeBytes(insn.opcode()));
                break;
            }
            case ATOMIC: atomic(st, pc, insn); break;
            default: throw reject.at(pc, "unexpected instruction form " + forms[pc]);
        }
        st.pc = pc + 1;
        return st;
    }

    /** The register's state, or {@code R%d !read_ok} when no path wrote it. */
    RegState read(VerifierState st, int pc, int r) {
        RegState s = st.reg(r);
        if (s.type == RegType.NOT_INIT) throw reject.at(pc, "R" + r + " !read_ok" + readHint(st, r, s));
        return s;
    }

    private String readHint(VerifierState st, int r, RegState s) {
        if (s.packetMovedAt >= 0) {
            return " (a packet pointer from before the call at pc " + s.packetMovedAt
                    + ", which can move the packet; load data and data_end from the ctx again)";
        }
        if (s.releasedAt >= 0) {
            return " (it pointed into a ring buffer reservation, released at pc " + s.releasedAt
                    + ": bpf_ringbuf_submit and _discard invalidate every copy)";
        }
        if (r == 0) return " (r0 is read but not set on this path; set r0 before exit)";
        if (r >= 1 && r <= 5) {
            String entry = st.frames.size() > 1 ? "a subprogram gets only the r1-r5 its caller set; " : "";
            return " (" + entry + "calls clobber r1-r5)";
        }
        return "";
    }

    // ---- ALU ----

    private void alu(VerifierState st, int pc, Insn insn) {
        boolean alu64 = insn.cls() == Opcodes.ALU64;
        int op = Opcodes.op(insn.opcode());
        boolean regSrc = Opcodes.source(insn.opcode()) == Opcodes.X;
        RegState src = regSrc ? read(st, pc, insn.src()) : RegState.constant(insn.imm());
        RegState[] regs = st.cur().regs;
        if (op == Opcodes.MOV) {
            regs[insn.dst()] = mov(pc, insn, alu64, regSrc, src);
            return;
        }
        RegState dst = read(st, pc, insn.dst()).copy();
        if (policy.ctxRules() != null && !regSrc) constantOperand(pc, op, alu64, insn.imm());
        if (dst.type.isPointer() || src.type.isPointer()) {
            regs[insn.dst()] = pointerAlu(st, pc, insn, op, alu64, dst, src);
            return;
        }
        ScalarAlu.apply(op, alu64, insn.off(), dst, src);
        regs[insn.dst()] = dst;
    }

    /**
     * check_alu_op of a kernel program type: a constant divisor of 0 and a constant shift past the width are
     * refused at load ("div by zero", "invalid shift 64"). The RFC defines both (the conformance suites'
     * memory-block programs keep its results: x / 0 = 0, the shift masked), so only loads naming a kernel
     * program type follow Linux here; a divisor or shift in a register is the same on both engines either way.
     */
    private void constantOperand(int pc, int op, boolean alu64, int imm) {
        if ((op == Opcodes.DIV || op == Opcodes.MOD) && imm == 0) throw reject.at(pc, "div by zero");
        if ((op == Opcodes.LSH || op == Opcodes.RSH || op == Opcodes.ARSH) && (imm < 0 || imm >= (alu64 ? 64 : 32))) {
            throw reject.at(pc, "invalid shift " + imm);
        }
    }

    private RegState mov(int pc, Insn insn, boolean alu64, boolean regSrc, RegState src) {
        if (!regSrc) return RegState.constant(alu64 ? insn.imm() : insn.imm() & 0xffffffffL);
        if (insn.off() != 0) { // movsx
            if (src.type.isPointer()) return leak(pc, "R" + insn.src() + " sign-extension of a pointer is prohibited");
            RegState d = src.copy();
            ScalarAlu.unary(insn.opcode(), insn.imm(), insn.off(), d);
            return d;
        }
        if (alu64) return src.copy();
        if (src.type.isPointer()) return leak(pc, "R" + insn.src() + " partial copy of pointer");
        RegState d = RegState.unknown();
        ScalarAlu.mov32(d, src);
        return d;
    }

    /** Pointer arithmetic ({@code adjust_ptr_min_max_vals}): only pointer +/- scalar, and pointer - pointer of one region. */
    private RegState pointerAlu(VerifierState st, int pc, Insn insn, int op, boolean alu64, RegState dst, RegState src) {
        int d = insn.dst();
        if (dst.type.isPointer() && src.type.isPointer()) {
            if (op == Opcodes.SUB && dst.comparableWith(src)) { // e.g. data_end - data: the packet's length, also as u32
                RegState diff = RegState.unknown();
                if (dst.sameRegion(src) && dst.isConst() && src.isConst()) {
                    diff.markConst(ScalarAlu.fold(Opcodes.SUB, alu64, 0, dst.off + dst.smin, src.off + src.smin));
                } else if (!alu64) {
                    diff.setVar(0, 0xffffffffL);
                }
                return diff;
            }
            return leak(pc, "R" + d + " pointer " + opName(op) + "= pointer prohibited");
        }
        if (!alu64) return leak(pc, "R" + d + " 32-bit pointer arithmetic prohibited");
        RegState ptr = dst.type.isPointer() ? dst : src, scalar = dst.type.isPointer() ? src : dst;
        if (op != Opcodes.ADD && !(op == Opcodes.SUB && dst.type.isPointer())) {
            String what = (op == Opcodes.AND || op == Opcodes.OR || op == Opcodes.XOR)
                    ? "R" + d + " bitwise operator " + opName(op) + "= on pointer prohibited"
                    : "R" + d + " pointer arithmetic with " + opName(op) + "= operator prohibited";
            return leak(pc, what);
        }
        if (ptr.type.maybeNull()) {
            throw reject.at(pc, "R" + d + " pointer arithmetic on " + ptr.type.logName + " prohibited, null-check it first");
        }
        if (scalar.isConstZero() && (op == Opcodes.ADD || ptr.type == RegType.PTR_TO_FUNC)
                && (ptr.type == RegType.CONST_PTR_TO_MAP || ptr.type == RegType.PTR_TO_FUNC)) {
            return ptr.copy(); // adding a known 0 leaves the pointer as it is: Linux allows it (clang emits it)
        }
        if (ptr.type == RegType.PTR_TO_PACKET_END || ptr.type == RegType.CONST_PTR_TO_MAP || ptr.type == RegType.PTR_TO_FUNC) {
            throw reject.at(pc, "R" + d + " pointer arithmetic on " + ptr.type.logName + " prohibited");
        }
        RegState out = ptr.copy();
        boolean sub = op == Opcodes.SUB;
        if (scalar.isConst()) {
            long k = sub ? -scalar.smin : scalar.smin;
            if (Math.abs(out.off + k) >= MemoryAccess.MAX_VAR_OFF || (sub && scalar.smin == Long.MIN_VALUE)) {
                return outOfRange(pc, d, out, "pointer offset " + (out.off + k));
            }
            out.off += k;
            return out;
        }
        if (out.type == RegType.PTR_TO_PACKET) { // a new variable part: its own id, nothing proven after it yet
            out.id = nextId++;
            out.varRange = 0;
        }
        long lo = sub ? -scalar.smax : scalar.smin, hi = sub ? -scalar.smin : scalar.smax;
        if (scalar.smin <= -MemoryAccess.MAX_VAR_OFF || scalar.smax >= MemoryAccess.MAX_VAR_OFF) {
            // check_reg_sane_offset's words
            return outOfRange(pc, d, out, scalar.smin == Long.MIN_VALUE ? "register with unbounded min value"
                    : scalar.smax == Long.MAX_VALUE ? "register with unbounded max value"
                    : "register with value [" + scalar.smin + ", " + scalar.smax + "] (R" + (dst.type.isPointer() ? insn.src() : d) + ")");
        }
        Tnum known = sub ? out.tnum.sub(scalar.tnum) : out.tnum.add(scalar.tnum); // adjust_ptr_min_max_vals keeps var_off
        out.setVar(out.smin + lo, out.smax + hi);
        out.tnum = out.tnum.intersect(known);
        out.sync();
        if (out.type == RegType.PTR_TO_CTX && policy.ctxFixedOffsets()) {
            throw reject.at(pc, "R" + d + " variable ctx access var_off=(" + out.smin + ";" + out.smax + ") disallowed");
        }
        return out;
    }

    /** Pointer math that leaves the region's bounds: fine where every access is checked at run time, else the kernel's rejection. */
    private RegState outOfRange(int pc, int d, RegState ptr, String what) {
        if (ptr.type == RegType.PTR_TO_STACK || ptr.type == RegType.PTR_TO_MAP_VALUE
                || (ptr.type == RegType.PTR_TO_CTX && policy.ctxFixedOffsets())) {
            throw reject.at(pc, "R" + d + " math between " + ptr.type.logName + " pointer and " + what + " is not allowed");
        }
        RegState out = ptr.copy();
        out.setVar(-MemoryAccess.MAX_VAR_OFF, MemoryAccess.MAX_VAR_OFF);
        return out;
    }

    /** An operation that would expose pointer bits: rejected unless the load allows pointer leaks (then an unknown scalar). */
    RegState leak(int pc, String reason) {
        if (!policy.allowPtrLeaks()) throw reject.at(pc, reason);
        return RegState.unknown();
    }

    private void unary(VerifierState st, int pc, Insn insn) {
        RegState d = read(st, pc, insn.dst()).copy();
        if (d.type.isPointer()) {
            st.cur().regs[insn.dst()] = leak(pc, "R" + insn.dst() + " pointer arithmetic with "
                    + (Opcodes.op(insn.opcode()) == Opcodes.NEG ? "neg" : "byte swap") + " prohibited");
            return;
        }
        ScalarAlu.unary(insn.opcode(), insn.imm(), insn.off(), d);
        st.cur().regs[insn.dst()] = d;
    }

    private static String opName(int op) {
        switch (op) {
            case Opcodes.ADD: return "+"; case Opcodes.SUB: return "-"; case Opcodes.MUL: return "*";
            case Opcodes.DIV: return "/"; case Opcodes.MOD: return "%"; case Opcodes.OR: return "|";
            case Opcodes.AND: return "&"; case Opcodes.XOR: return "^"; case Opcodes.LSH: return "<<";
            case Opcodes.RSH: return ">>"; case Opcodes.ARSH: return "s>>";
            default: return "?";
        }
    }

    // ---- jumps ----

    /** Offsets into one region moved into the positive range, where signed and unsigned comparisons agree. */
    private static final long REGION_BIAS = 1L << 40;

    private VerifierState branch(VerifierState st, int pc, Insn insn, Deque<VerifierState> pending) {
        boolean jmp32 = insn.cls() == Opcodes.JMP32;
        int op = Opcodes.op(insn.opcode());
        boolean regSrc = forms[pc] == InsnForm.JCOND_REG;
        RegState a = read(st, pc, insn.dst());
        RegState b = regSrc ? read(st, pc, insn.src()) : RegState.constant(insn.imm());
        int target = (int) ControlFlow.target(pc, forms[pc], insn);
        int decided;
        if (!a.type.isPointer() && !b.type.isPointer()) {
            decided = BranchRules.decide(op, jmp32, a, b);
        } else {
            decided = pointerCompare(pc, insn, op, jmp32, a, b);
        }
        if (decided == BranchRules.ALWAYS) { st.pc = target; return st; }
        if (decided == BranchRules.NEVER) { st.pc = pc + 1; return st; }
        VerifierState taken = st.copy();
        refine(taken, insn, regSrc, op, jmp32, true);
        taken.pc = target;
        pending.push(taken);
        refine(st, insn, regSrc, op, jmp32, false);
        st.pc = pc + 1;
        return st;
    }

    /** Narrows the compared registers of {@code st} to the branch taken or not; null checks decide every copy of the pointer. */
    private void refine(VerifierState st, Insn insn, boolean regSrc, int op, boolean jmp32, boolean taken) {
        RegState[] regs = st.cur().regs;
        RegState a = regs[insn.dst()].copy();
        RegState b = regSrc ? regs[insn.src()].copy() : RegState.constant(insn.imm());
        if (a.type.isPointer() || b.type.isPointer()) {
            RegState ptr = a.type.isPointer() ? a : b, other = a.type.isPointer() ? b : a;
            if (ptr.type.maybeNull() && other.isConstZero() && !jmp32 && (op == Opcodes.JEQ || op == Opcodes.JNE)) {
                markNullness(st, ptr.id, (op == Opcodes.JEQ) == taken);
            }
            if (!jmp32) PacketRange.refine(st, op, a, b, taken);
            return;
        }
        BranchRules.refine(op, jmp32, taken, a, b);
        regs[insn.dst()] = a;
        if (regSrc && insn.src() != insn.dst()) regs[insn.src()] = b;
    }

    /** {@code mark_ptr_or_null_regs}: every register and spill with this id becomes 0 (null) or the non-null pointer. */
    private static void markNullness(VerifierState st, int id, boolean isNull) {
        st.forEachReg(r -> {
            if (r.id != id || !r.type.maybeNull()) return;
            if (isNull) r.markConst(0);
            else r.type = r.type.nonNull();
        });
        if (isNull) st.release(id); // a reservation that failed holds nothing

    }

    /** Comparisons involving a pointer: null checks, pointers into one region, and (with leaks allowed) anything. */
    private int pointerCompare(int pc, Insn insn, int op, boolean jmp32, RegState a, RegState b) {
        boolean eqOrNe = (op == Opcodes.JEQ || op == Opcodes.JNE) && !jmp32;
        RegState ptr = a.type.isPointer() ? a : b, other = a.type.isPointer() ? b : a;
        if (eqOrNe && other.isConstZero()) {
            if (ptr.type.maybeNull()) return BranchRules.UNKNOWN;
            // The conformance suites' memory block is null when a test has none; other pointers never are.
            if (ptr.type == RegType.PTR_TO_CTX && !policy.ctxFixedOffsets()) return BranchRules.UNKNOWN;
            return (op == Opcodes.JNE) ? BranchRules.ALWAYS : BranchRules.NEVER;
        }
        if (a.type.isPointer() && b.type.isPointer() && a.comparableWith(b)) {
            // (a 32-bit compare of two packet pointers: bpf4j's packets never straddle a 4 GiB boundary)
            if (a.sameRegion(b) && a.isConst() && b.isConst() && op != Opcodes.JSET && !jmp32) {
                // one region's addresses compare as their offsets do, in every engine
                return JmpOps.holds(op, false, REGION_BIAS + a.off + a.smin, REGION_BIAS + b.off + b.smin)
                        ? BranchRules.ALWAYS : BranchRules.NEVER;
            }
            return BranchRules.UNKNOWN;
        }
        if (!policy.allowPtrLeaks()) {
            throw reject.at(pc, "R" + (a.type.isPointer() ? insn.dst() : insn.src()) + " pointer comparison prohibited");
        }
        return BranchRules.UNKNOWN;
    }

    // ---- calls and exit ----

    private VerifierState localCall(VerifierState st, int pc, Insn insn) {
        int target = (int) ControlFlow.target(pc, InsnForm.CALL_LOCAL, insn);
        return pushFrame(st, pc, target, false, st.cur().regs);
    }

    /** A new frame for a subprogram (or a callback) at {@code target}, its r1-r5 those given. */
    private VerifierState pushFrame(VerifierState st, int pc, int target, boolean callback, RegState[] args) {
        if (st.frames.size() >= Limits.MAX_CALL_FRAMES) {
            throw reject.at(pc, "the call stack of " + (st.frames.size() + 1) + " frames is too deep (call depth exceeded: at most "
                    + Limits.MAX_CALL_FRAMES + " frames)");
        }
        FuncState callee = new FuncState(st.frames.size(), target, pc, callback);
        for (int r = 1; r <= 5; r++) callee.regs[r] = args[r].copy();
        st.frames.add(callee);
        st.pc = target;
        return st;
    }

    /**
     * {@code BPF_EXIT}: the main program's r0 must be set (the kernel's {@code check_return_code});
     * a subprogram's r0 goes back to its caller as it is, set or not ({@code prepare_func_exit}), so
     * only a caller that reads it is refused; a callback's must be a number.
     */
    private VerifierState exit(VerifierState st, int pc) {
        if (st.frames.size() == 1) {
            checkReferenceLeak(st, pc, "BPF_EXIT instruction in main prog");
            RegState r0 = read(st, pc, 0);
            ReturnRange range = policy.returnRange();
            if (range != null) { // check_return_code of a program type with a return range
                if (r0.type != RegType.SCALAR) {
                    throw reject.at(pc, "At program exit the register R0 is not a known value (" + r0.type.logName + ")");
                }
                if (r0.smin < range.min() || r0.smax > range.max()) {
                    throw reject.at(pc, invalidScalar("At program exit", "R0", r0, range.min(), range.max()));
                }
            }
            if (r0.type.isPointer()) leak(pc, "R0 leaks addr as return value");
            return null;
        }
        FuncState callee = st.frames.remove(st.frames.size() - 1);
        RegState r0 = callee.regs[0];
        if (r0.type == RegType.PTR_TO_STACK) { // any frame's, as Linux: conservative
            throw reject.at(pc, "cannot return stack pointer to the caller");
        }
        RegState[] regs = st.cur().regs;
        if (callee.callback) {
            if (r0.type != RegType.SCALAR) throw reject.at(pc, "R0 not a scalar value (a callback returns a number)");
            // callback_ret_range of bpf_loop, bpf_for_each_map_elem and bpf_find_vma: 0 (go on) or 1 (stop)
            if (r0.smin < 0 || r0.smax > 1) throw reject.at(pc, invalidScalar("At callback return", "R0", r0, 0, 1));
            regs[0] = RegState.unknown();
        } else {
            regs[0] = r0.copy();
        }
        for (int r = 1; r <= 5; r++) regs[r] = RegState.notInit();
        st.pc = callee.callsite + 1;
        return st;
    }

    /**
     * check_resource_leak in the main program's frame (at its exit, a tail call, LD_ABS/IND): a ring buffer
     * reservation still held is "Unreleased reference id=N alloc_insn=M", then "... would lead to reference leak".
     */
    private void checkReferenceLeak(VerifierState st, int pc, String prefix) {
        if (st.frames.size() != 1 || st.refs.isEmpty()) return;
        int[] ref = st.refs.get(0);
        throw reject.at(pc, prefix + " would lead to reference leak (Unreleased reference id=" + ref[0] + " alloc_insn=" + ref[1] + ")");
    }

    /** verbose_invalid_scalar: the bounds a return value has, against those it needs. */
    private static String invalidScalar(String ctx, String reg, RegState r, long min, long max) {
        StringBuilder b = new StringBuilder(ctx).append(" the register ").append(reg).append(" has");
        if (r.smin > Long.MIN_VALUE) b.append(" smin=").append(r.smin);
        if (r.smax < Long.MAX_VALUE) b.append(" smax=").append(r.smax);
        if (r.smin == Long.MIN_VALUE && r.smax == Long.MAX_VALUE) b.append(" unknown scalar value");
        return b.append(" should have been in [").append(min).append(", ").append(max).append(']').toString();
    }

    /**
     * callx (uBPF): the helper whose id is in dst. A constant id is checked as a call of that helper;
     * any other id is left to the engines, which refuse an unknown one when it runs, and the call is
     * checked against the lenient prototype of a helper the verifier does not know.
     */
    private VerifierState registerCall(VerifierState st, int pc, Insn insn, Deque<VerifierState> pending) {
        RegState id = read(st, pc, insn.dst());
        if (id.type.isPointer()) throw reject.at(pc, "R" + insn.dst() + " type=" + id.type.logName + " expected=scalar (a helper id)");
        if (id.isConst() && id.smin == (int) id.smin && helpers.lookup((int) id.smin).isPresent()) {
            return helperCall(st, pc, (int) id.smin, pending);
        }
        runsOtherCode = true; // any helper: a tail call or a callback among them
        return finishHelperCall(st, HelperProto.UNKNOWN, helperArgs.check(st, pc, "callx helper", HelperProto.UNKNOWN), pc);
    }

    /**
     * True once a path called a helper that runs BPF code the exploration does not count round by
     * round: a callback (run up to the helper's own limit) or a tail call (another program).
     */
    boolean runsOtherCode() { return runsOtherCode; }

    private boolean runsOtherCode;

    private VerifierState helperCall(VerifierState st, int pc, int helperId, Deque<VerifierState> pending) {
        HelperSpec spec = helpers.lookup(helperId).orElseThrow(() -> reject.at(pc, "invalid func unknown#" + helperId));
        if (policy.allowedHelpers() != null && !policy.allowedHelpers().contains(helperId)) { // get_func_proto gave none
            throw reject.at(pc, "program of this type cannot use helper " + spec.name() + "#" + helperId);
        }
        HelperProto proto = HelperProto.forName(spec.name());
        HelperArgs.Checked args = helperArgs.check(st, pc, spec.name(), proto);
        if (spec.name().equals("bpf_tail_call")) {
            runsOtherCode = true;
            checkReferenceLeak(st, pc, "tail_call");
        }
        if (spec.name().equals("bpf_ringbuf_submit") || spec.name().equals("bpf_ringbuf_discard")) {
            int id = st.cur().regs[1].id;
            // release_reference: the reservation and every copy of its pointer are gone (mark_reg_invalid)
            if (st.release(id)) {
                st.forEachReg(r -> {
                    if (r.id != id || r.type != RegType.PTR_TO_MEM) return;
                    if (policy.allowPtrLeaks()) r.markUnknown();
                    else {
                        r.markNotInit(-1);
                        r.releasedAt = pc;
                    }
                });
            }
        }
        if (HelperIds.changesPacketData(helperId)) clearAllPacketPointers(st, pc);
        checkMapCompatibility(pc, helperId, spec.name(), proto, args);
        if (args.callback() >= 0 && !neverCallsBack(spec.name(), args)) {
            runsOtherCode = true;
            VerifierState inCallback = st.copy();
            pushFrame(inCallback, pc, args.callback(), true, args.callbackArgs(inCallback));
            pending.push(inCallback);
        }
        boolean found = spec.name().equals("bpf_map_lookup_elem") && args.argsAtCall()[1] != null
                && args.argsAtCall()[1].type == RegType.CONST_PTR_TO_MAP
                && ConstMapKey.alwaysFound(st, policy.maps().of(args.argsAtCall()[1].target), args.argsAtCall()[2]);
        VerifierState after = finishHelperCall(st, proto, args, pc);
        if (found) { // an array element at a known index: never NULL (Linux 6.13+)
            RegState r0 = after.cur().regs[0];
            r0.type = RegType.PTR_TO_MAP_VALUE;
            r0.id = 0;
        }
        return after;
    }

    /**
     * A bpf_loop whose count (r1) is at most 0 never runs its callback: as Linux's check_helper_call
     * (BPF_FUNC_loop explores the callback only while callback_depth < r1's umax), its body is not
     * explored from this call. A callback also passed to a call that may run it is explored from there.
     */
    private static boolean neverCallsBack(String helper, HelperArgs.Checked args) {
        if (!helper.equals("bpf_loop")) return false;
        RegState count = args.argsAtCall()[1];
        return count != null && count.type == RegType.SCALAR && count.umax == 0;
    }

    /** check_map_func_compatibility: the map argument's type against the helper (when the verifier knows the type). */
    private void checkMapCompatibility(int pc, int helperId, String helper, HelperProto proto, HelperArgs.Checked args) {
        int i = proto.args().indexOf(HelperProto.Arg.CONST_MAP_PTR);
        if (i < 0) return;
        RegState map = args.argsAtCall()[i + 1];
        if (map == null || map.type != RegType.CONST_PTR_TO_MAP) return;
        MapShapes.Shape shape = policy.maps().of(map.target);
        String refusal = shape == null ? null : MapFuncCompat.refusal(shape.mapType(), helper, helperId);
        if (refusal != null) throw reject.at(pc, refusal);
    }

    /**
     * clear_all_pkt_pointers: the helper may have moved the packet, so every packet pointer of every frame,
     * in a register or spilled, stops being one; the program must load data/data_end from the ctx again.
     * As mark_reg_invalid: unreadable without allow_ptr_leaks, else an unknown scalar.
     */
    private void clearAllPacketPointers(VerifierState st, int pc) {
        st.forEachReg(r -> {
            if (!RegState.isPacketPointer(r.type)) return;
            if (policy.allowPtrLeaks()) r.markUnknown();
            else r.markNotInit(pc);
        });
    }

    /** After any helper call: r1-r5 unreadable, r0 what the prototype returns. */
    private VerifierState finishHelperCall(VerifierState st, HelperProto proto, HelperArgs.Checked args, int pc) {
        RegState[] regs = st.cur().regs;
        for (int r = 1; r <= 5; r++) regs[r] = RegState.notInit();
        regs[0] = returned(proto.ret(), args);
        refineReturn(args, regs[0]);
        if (proto.ret() == HelperProto.Ret.PTR_TO_ALLOC_MEM_OR_NULL) st.refs.add(new int[] {regs[0].id, pc}); // acquire_reference
        return st.pcAdvance();
    }

    /** MAX_ERRNO of linux/err.h: a helper's negative errno is at least -4095. */
    private static final long MAX_ERRNO = 4095;

    /**
     * do_refine_retval_range: the string reads and bpf_get_stack return at most their size argument's
     * largest value (or a negative errno); bpf_get_smp_processor_id a CPU below nr_cpu_ids.
     */
    private static void refineReturn(HelperArgs.Checked args, RegState r0) {
        int sizeReg = switch (args.helper()) {
            case "bpf_probe_read_str", "bpf_probe_read_user_str", "bpf_probe_read_kernel_str" -> 2;
            case "bpf_get_stack" -> 3;
            default -> 0;
        };
        if (sizeReg > 0 && r0.type == RegType.SCALAR) {
            RegState size = args.argsAtCall()[sizeReg];
            long max = size == null || size.type != RegType.SCALAR || size.umax < 0 ? Long.MAX_VALUE : size.umax;
            r0.setVar(-MAX_ERRNO, max);
        } else if (args.helper().equals("bpf_get_smp_processor_id") && r0.type == RegType.SCALAR) {
            r0.setVar(0, Cpus.possible() - 1);
        }
    }

    private RegState returned(HelperProto.Ret ret, HelperArgs.Checked args) {
        switch (ret) {
            case VOID: return RegState.notInit();
            case PTR_TO_MAP_VALUE_OR_NULL: {
                RegState v = RegState.pointer(RegType.PTR_TO_MAP_VALUE_OR_NULL, 0);
                v.id = nextId++;
                v.memSize = args.mapValueSize();
                v.target = args.mapTarget();
                return v;
            }
            case PTR_TO_ALLOC_MEM_OR_NULL: {
                RegState v = RegState.pointer(RegType.PTR_TO_MEM_OR_NULL, 0);
                v.id = nextId++;
                return v;
            }
            case PTR_TO_BTF_ID_TASK: {
                RegState v = RegState.pointer(RegType.PTR_TO_BTF_ID, 0);
                v.target = BtfObject.TASK_STRUCT.ordinal();
                return v;
            }
            default: return RegState.unknown();
        }
    }

    private void lddw(VerifierState st, int pc, Insn insn) {
        RegState v;
        if (insn.src() == Opcodes.PSEUDO_FUNC) {
            v = RegState.pointer(RegType.PTR_TO_FUNC, 0);
            v.target = ControlFlow.target(pc, InsnForm.LDDW, insn);
        } else if (insn.src() == Opcodes.PSEUDO_IMM64) {
            long imm = insn.imm64(insns[pc + 1]);
            MapShapes.Shape map = policy.maps().of(imm);
            MapShapes.Value value = map == null ? policy.maps().valueAt(imm) : null;
            if (map != null) { // a map handle the object loader resolved: the kernel's CONST_PTR_TO_MAP
                v = RegState.pointer(RegType.CONST_PTR_TO_MAP, 0);
                v.target = imm;
                v.memSize = map.valueSize();
            } else if (value != null) { // a global-data address it resolved (BPF_PSEUDO_MAP_VALUE)
                v = RegState.pointer(RegType.PTR_TO_MAP_VALUE, value.offset());
                v.target = value.handle();
                v.memSize = value.map().valueSize();
            } else {
                v = RegState.constant(imm);
            }
        } else {
            v = RegState.unknown(); // a pseudo source only an object loader's own pass accepts
        }
        st.cur().regs[insn.dst()] = v;
    }

    private void legacyPacketLoad(VerifierState st, int pc, Insn insn) {
        checkReferenceLeak(st, pc, "BPF_LD_[ABS|IND]");
        RegState ctx = read(st, pc, 6);
        boolean plainArgs = !policy.ctxEntry() && ctx.type == RegType.SCALAR; // a raw program's r1: whatever the caller passed
        if (ctx.type != RegType.PTR_TO_CTX && !plainArgs) {
            throw reject.at(pc, "at the time of BPF_LD_ABS|IND R6 != pointer to skb");
        }
        if (forms[pc] == InsnForm.LD_IND) {
            RegState idx = read(st, pc, insn.src());
            if (idx.type.isPointer()) throw reject.at(pc, "R" + insn.src() + " pointer as LD_IND offset prohibited");
        }
        RegState[] regs = st.cur().regs;
        for (int r = 1; r <= 5; r++) regs[r] = RegState.notInit();
        regs[0] = MemoryAccess.loadedScalar(Opcodes.sizeBytes(insn.opcode()), false);
    }

    private void atomic(VerifierState st, int pc, Insn insn) {
        RegState base = read(st, pc, insn.dst());
        RegState value = read(st, pc, insn.src());
        int size = Opcodes.sizeBytes(insn.opcode());
        if (value.type.isPointer()) leak(pc, "R" + insn.src() + " leaks addr into mem");
        if (insn.imm() == Opcodes.CMPXCHG) {
            RegState old = read(st, pc, 0);
            if (old.type.isPointer()) leak(pc, "R0 leaks addr into mem");
        }
        RegState fetched = memory.atomic(st, pc, insn.dst(), base, insn.off(), size);
        aux.access(pc, insn.dst(), base, insn.off(), size);
        if (insn.imm() == Opcodes.CMPXCHG) st.cur().regs[0] = fetched;
        else if ((insn.imm() & Opcodes.FETCH) != 0) st.cur().regs[insn.src()] = fetched;
    }
}
