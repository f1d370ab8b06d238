package dev.bpf4j.fuzz;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.isa.Insn;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.fuzz.RegKind.*;

/**
 * Writes one program for {@link GrammarGenerator}: the main function, then every subprogram it (or
 * they) call, each a random walk over the instruction grammar that tracks what every register holds
 * ({@link GeneratorRegs}) so that, unless {@link GrammarOptions#frameEscapes()}, only values defined on
 * every path are read and no pointer is ever folded into r0 or stored to memory. Structure: forward
 * conditional jumps over nested blocks, bounded loops (a counter register the body never touches),
 * bpf-to-bpf calls with scalar, frame-pointer and memory-block arguments, helper calls with odd
 * arguments, and loads/stores/atomics at and around the bounds of every frame and of the memory block.
 */
final class ProgramWriter {
    static final int MAX_FUNCTIONS = 16;
    /** Call chains go past the kernel's 8 frames now and then (CALL_DEPTH_EXCEEDED must agree). */
    static final int MAX_GENERATED_DEPTH = 10;
    static final int FRAME = 512;
    static final int FNV_PRIME = 0x01000193;

    /** What a function is: a bpf-to-bpf subprogram, or a callback whose r0 Linux bounds ({@code bpf_loop}: 0 or 1; hash-map for_each: always 0). */
    enum Role { MAIN, SUBPROG, CALLBACK, ORDERLESS_CALLBACK }

    /** {@code orderless}: called (maybe indirectly) from a hash map's for_each callback, whose order Linux does not define. */
    private record FunctionSpec(int index, int depth, GeneratorRegs entry, Role role, boolean orderless) {}

    final Random rnd;
    private final GrammarOptions opt;
    private final int memLen;
    /** The object around a tc program, or null for a program over the memory block. */
    final ObjectShape object;
    /** An object program with LD_ABS/LD_IND: Linux refuses them next to bpf-to-bpf calls, so it has no functions. */
    final boolean ldAbs;
    private final ObjectStatements objectStatements;
    final List<Insn> code = new ArrayList<>();
    private final List<int[]> callFixups = new ArrayList<>();
    private final int[] functionStart = new int[MAX_FUNCTIONS];
    private final Deque<FunctionSpec> pending = new ArrayDeque<>();
    private int functions = 1;
    /** Depth a chain of calls made at each function's start reaches (0: none). */
    private int chainTo;

    // the function being written
    GeneratorRegs st;
    int depth;
    private int steps;
    private int nesting;
    private boolean inLoop;
    private int loopCounter = -1;
    /** The function being written may not touch maps: see {@link FunctionSpec#orderless}. */
    boolean orderless;
    /** Bytes of the function's frame the program uses: 512 each, or what fits Linux's 512 for the whole chain. */
    int frame;

    ProgramWriter(Random rnd, GrammarOptions opt, int memLen) { this(rnd, opt, memLen, null, false); }

    ProgramWriter(Random rnd, GrammarOptions opt, int memLen, ObjectShape object, boolean ldAbs) {
        this.rnd = rnd;
        this.opt = opt;
        this.memLen = object == null ? memLen : 0;
        this.object = object;
        this.ldAbs = ldAbs;
        this.objectStatements = object == null ? null : new ObjectStatements(this, memLen);
    }

    private boolean kernelComparable() { return opt.kernelComparable() || object != null; }

    /**
     * Linux gives one call chain 512 bytes of stack in all: main uses half, each subprogram 32, so a
     * chain of 8 frames fits and programs stay comparable. Only the frame-escape classes use whole frames.
     */
    private int frameFor(int functionDepth) {
        if (opt.frameEscapes()) return FRAME;
        return functionDepth == 1 ? (object != null ? 192 : 256) : 32;
    }

    List<Insn> write() {
        // now and then a chain that goes straight to Linux's 8 frames and past them
        chainTo = rnd.nextInt(12) == 0 ? 7 + rnd.nextInt(MAX_GENERATED_DEPTH - 6) : 0;
        writeMain();
        while (!pending.isEmpty()) {
            FunctionSpec f = pending.poll();
            functionStart[f.index()] = code.size();
            writeSubprogram(f);
        }
        for (int[] fix : callFixups) {
            Insn at = code.get(fix[0]);
            code.set(fix[0], new Insn(at.opcode(), at.dst(), at.src(), 0, functionStart[fix[1]] - fix[0] - 1));
        }
        return code;
    }

    // ---- functions ---------------------------------------------------------------------------

    private void writeMain() {
        st = new GeneratorRegs();
        depth = 1;
        frame = frameFor(1);
        st.set(10, PTR_TO_STACK, 0, frame);
        if (object != null) {
            // r6 = the context for good: LD_ABS, LD_IND and tail calls need it there
            st.set(6, PTR_TO_CTX, 0, 0);
            emit(new Insn(ALU64 | MOV | X, 6, 1, 0, 0));
            setScalar(1);
            setScalar(2);
        } else {
            st.set(1, memLen > 0 ? PTR_TO_MEM : SCALAR, 0, memLen);
            st.scalar(2);
            emit(new Insn(ALU64 | MOV | X, 6, 1, 0, 0));
            st.set(6, st.kind[1], 0, memLen);
        }
        for (int r : new int[] {0, 3, 4, 5, 7, 8, 9}) {
            if (opt.frameEscapes() && rnd.nextInt(20) == 0) st.scalar(r); // read although never written
            else setScalar(r);
        }
        initFrame();
        if (depth < chainTo && !ldAbs) call(true);
        steps = 10 + rnd.nextInt(Math.max(1, opt.maxBody()));
        block();
        epilogue(Role.MAIN);
    }

    private void writeSubprogram(FunctionSpec f) {
        st = f.entry().copy();
        depth = f.depth();
        orderless = f.orderless();
        frame = frameFor(depth);
        st.set(10, PTR_TO_STACK, 0, frame);
        nesting = 0;
        initFrame();
        if (depth < chainTo && f.role() == Role.SUBPROG) call(true);
        steps = 3 + rnd.nextInt(Math.max(1, opt.maxBody() / 3));
        block();
        epilogue(f.role());
    }

    /**
     * A quarter of the functions write their whole frame first; the others read never-written bytes of
     * their own frame, which the kernel allows privileged programs (both of bpf4j's engines must read
     * zeros there; Linux reads whatever was there, so kernel-comparable functions always write it).
     */
    private void initFrame() {
        if (!kernelComparable() && rnd.nextInt(4) != 0) return;
        for (int slot = -8; slot >= -frame; slot -= 8) emit(new Insn(ST | MEM | DW, 10, 0, slot, InsnChoices.imm(rnd)));
    }

    /** r0 = a hash of every scalar register (and, in main, of two frame slots), bounded as Linux wants a callback's; exit. */
    private void epilogue(Role role) {
        boolean main = role == Role.MAIN;
        if (!st.is(0, SCALAR)) setScalar(0);
        for (int r = 1; r <= 9; r++) {
            if (!st.is(r, SCALAR)) continue;
            emit(new Insn(ALU64 | MUL | K, 0, 0, 0, FNV_PRIME));
            emit(new Insn(ALU64 | XOR | X, 0, r, 0, 0));
        }
        if (main) {
            for (int i = 0; i < 2; i++) {
                emit(new Insn(LDX | MEM | DW, 1, 10, -8 * (1 + rnd.nextInt(frame / 8)), 0));
                emit(new Insn(ALU64 | XOR | X, 0, 1, 0, 0));
            }
        }
        if (role == Role.CALLBACK) emit(new Insn(ALU64 | AND | K, 0, 0, 0, 1));
        if (role == Role.ORDERLESS_CALLBACK) emit(new Insn(ALU64 | MOV | K, 0, 0, 0, 0));
        emit(new Insn(JMP | EXIT, 0, 0, 0, 0));
    }

    // ---- blocks ------------------------------------------------------------------------------

    /** Statements until the step budget of the function is spent. */
    private void block() {
        while (steps-- > 0) statement();
    }

    /** A nested block of at most {@code n} statements. */
    private void subBlock(int n) {
        int outer = steps;
        steps = Math.min(n, Math.max(1, outer));
        nesting++;
        block();
        nesting--;
        steps = Math.max(0, outer - n);
    }

    private void statement() {
        if (object != null && !inLoop && rnd.nextInt(5) == 0) {
            objectStatements.statement();
            return;
        }
        int p = rnd.nextInt(100);
        if (p < 22) aluImm();
        else if (p < 36) aluReg();
        else if (p < 40) byteSwap();
        else if (p < 43) lddw();
        else if (p < 64) memoryAccess();
        else if (p < 72 && nesting < 3) conditionalBlock();
        else if (p < 76 && !inLoop && nesting < 3) loop();
        else if (p < 83 && !inLoop && !ldAbs) call(false);
        else if (p < 89 && !inLoop) helperCall();
        else if (p < 95 && !inLoop) derivePointer();
        else if (p < 97 && nesting < 3 && rnd.nextInt(4) == 0) jumpOverDeadBlock(); // Linux refuses unreachable code: rare
        else aluImm();
    }

    void conditionalBlock() {
        int a = scalarReg();
        if (a < 0) return;
        int b = scalarReg();
        int at = emit(InsnChoices.condJump(rnd, a, b, rnd.nextBoolean()));
        GeneratorRegs taken = st.copy();
        subBlock(1 + rnd.nextInt(6));
        code.set(at, InsnChoices.withOff(code.get(at), code.size() - at - 1));
        st.join(taken);
    }

    /** {@code ja} (or {@code gotol}) over code that never runs. */
    private void jumpOverDeadBlock() {
        boolean gotol = rnd.nextInt(3) == 0;
        int at = emit(new Insn(gotol ? JMP32 | JA : JMP | JA, 0, 0, 0, 0));
        GeneratorRegs live = st.copy();
        subBlock(1 + rnd.nextInt(3));
        int off = code.size() - at - 1;
        code.set(at, gotol ? InsnChoices.withImm(code.get(at), off) : InsnChoices.withOff(code.get(at), off));
        st = live;
    }

    /** {@code counter = n; head: body; counter -= 1; if counter != 0 goto head}; now and then n is past the run's budget. */
    private void loop() {
        int counter = -1;
        for (int r : new int[] {7, 8, 9}) if (!st.kind[r].isPointer() && (counter < 0 || rnd.nextBoolean())) counter = r;
        if (counter < 0) return;
        int n = rnd.nextInt(60) == 0 ? (int) FuzzConventions.BUDGET + 1 : 1 + rnd.nextInt(5);
        emit(new Insn(ALU64 | MOV | K, counter, 0, 0, n));
        st.scalar(counter);
        int head = code.size();
        GeneratorRegs entry = st.copy();
        inLoop = true;
        loopCounter = counter;
        subBlock(2 + rnd.nextInt(6));
        inLoop = false;
        loopCounter = -1;
        emit(new Insn(ALU64 | ADD | K, counter, 0, 0, -1));
        int cls = rnd.nextBoolean() ? JMP : JMP32;
        int at = code.size();
        emit(new Insn(cls | (rnd.nextBoolean() ? JNE : JSGT) | K, counter, 0, head - at - 1, 0));
        st.join(entry);
    }

    // ---- ALU ---------------------------------------------------------------------------------

    private void aluImm() {
        int dst = writableReg(true);
        if (dst < 0) return;
        if (!st.is(dst, SCALAR)) {
            emit(new Insn(ALU64 | MOV | K, dst, 0, 0, InsnChoices.imm(rnd)));
        } else {
            emit(InsnChoices.aluImm(rnd, dst));
        }
        st.scalar(dst);
    }

    private void aluReg() {
        int src = scalarReg();
        int dst = writableReg(true);
        if (src < 0 || dst < 0) return;
        Insn i = InsnChoices.aluReg(rnd, dst, src);
        if (!st.is(dst, SCALAR) && op(i.opcode()) != MOV) i = new Insn(ALU64 | MOV | X, dst, src, 0, 0);
        emit(i);
        st.scalar(dst);
    }

    private void byteSwap() {
        int dst = scalarReg();
        if (dst < 0 || dst == loopCounter) return;
        emit(InsnChoices.byteSwap(rnd, dst));
    }

    private void lddw() {
        int dst = writableReg(false);
        if (dst < 0) return;
        long v = InsnChoices.imm64(rnd);
        emit(new Insn(LDDW, dst, 0, 0, (int) v));
        emit(new Insn(0, 0, 0, 0, (int) (v >>> 32)));
        st.scalar(dst);
    }

    // ---- memory ------------------------------------------------------------------------------

    private void memoryAccess() {
        int base = pointerReg();
        if (base >= 0) memoryAccess(base);
    }

    /** A load, store or atomic through pointer register {@code base}, at or around a bound of what it points into. */
    void memoryAccess(int base) {
        int size = InsnChoices.SIZES[rnd.nextInt(4)];
        int bytes = InsnChoices.bytes(size);
        int target = target(base, bytes);
        int off = target - st.off[base];
        if (off < Short.MIN_VALUE || off > Short.MAX_VALUE) return;
        int form = rnd.nextInt(10);
        if (form < 4) {
            int dst = writableReg(false);
            if (dst < 0) return;
            boolean sx = size != DW && rnd.nextInt(3) == 0;
            emit(new Insn(LDX | (sx ? MEMSX : MEM) | size, dst, base, off, 0));
            st.scalar(dst);
        } else if (form < 6) {
            emit(new Insn(ST | MEM | size, base, 0, off, InsnChoices.imm(rnd)));
        } else if (form < 8) {
            int src = scalarReg();
            if (src < 0) return;
            emit(new Insn(STX | MEM | size, base, src, off, 0));
        } else {
            // Linux has no atomics on packets: rare there, so that most such programs still load
            if (st.is(base, PTR_TO_PACKET) && rnd.nextInt(10) != 0) return;
            atomic(base, off - target + alignDown(target, rnd.nextInt(6) == 0 && base != 10 ? 1 : 8));
        }
    }

    /** Every atomic op, 32 and 64 bit, with and without fetch, xchg, cmpxchg (compares r0, loads into r0). */
    private void atomic(int base, int off) {
        int size = rnd.nextBoolean() ? DW : W;
        int op = InsnChoices.ATOMIC_OPS[rnd.nextInt(InsnChoices.ATOMIC_OPS.length)];
        int src = scalarReg();
        if (src < 0 || src == loopCounter && (op & FETCH) != 0) return;
        if (op == CMPXCHG) {
            if (loopCounter == 0 || base == 0) return;
            if (!st.is(0, SCALAR)) {
                if (inLoop) return;
                setScalar(0);
            }
        }
        emit(new Insn(STX | ATOMIC | size, base, src, off, op));
        if (op == CMPXCHG) st.scalar(0);
        else if ((op & FETCH) != 0) st.scalar(src);
    }

    /**
     * Where an access of {@code bytes} through a pointer of kind {@code k} lands, as an offset from the
     * start of what it points into: mostly inside and aligned, often right at or across a bound. Frames
     * are left only through r10 itself (the validator refuses that) or when frame escapes are on.
     */
    private int target(int base, int bytes) {
        RegKind k = st.kind[base];
        boolean viaR10 = base == 10;
        int lo, hi;
        if (k.isStack()) { lo = -st.size[base]; hi = 0; } else { lo = 0; hi = st.size[base]; }
        // r10-relative accesses outside the frame or misaligned are refused at load: rare, or nothing would load
        boolean refusedR10 = viaR10 && rnd.nextInt(40) == 0;
        // so are accesses past a map value or the checked packet range
        boolean refusedRegion = (k == PTR_TO_MAP_VALUE || k == PTR_TO_PACKET) && rnd.nextInt(30) == 0;
        // just below the 512 bytes or across r10 (not merely below a smaller kernel-comparable frame: Linux would
        // read the unwritten stack there as garbage)
        if (refusedR10) return rnd.nextBoolean() ? -FRAME - 1 - rnd.nextInt(bytes) : -bytes + 1 + rnd.nextInt(bytes);
        boolean mayLeave = k == PTR_TO_MEM || refusedR10 || refusedRegion || opt.frameEscapes() && !viaR10;
        int t;
        if (rnd.nextInt(4) == 0) {
            int bound = rnd.nextBoolean() ? lo : hi - bytes;
            t = bound + rnd.nextInt(2 * bytes + 1) - bytes;
            if (opt.frameEscapes() && k.isStack() && rnd.nextInt(3) == 0) t = rnd.nextInt(1200) - 600;
        } else {
            t = lo + rnd.nextInt(Math.max(1, hi - lo - bytes + 1));
            if (rnd.nextInt(5) != 0 || viaR10 && !refusedR10) t = alignDown(t, bytes);
        }
        if (viaR10 && !refusedR10) t = alignDown(t, bytes);
        if (!mayLeave) t = Math.max(lo, Math.min(t, hi - bytes));
        return t;
    }

    private static int alignDown(int v, int a) { return Math.floorDiv(v, a) * a; }

    /** {@code dst = r10 / memory pointer / outer pointer; dst += k}. */
    private void derivePointer() {
        int dst = writableReg(false);
        if (dst < 0) return;
        List<Integer> sources = new ArrayList<>();
        for (int r = 0; r <= 10; r++) if (st.kind[r].isPointer()) sources.add(r);
        int src = sources.get(rnd.nextInt(sources.size()));
        RegKind k = st.kind[src];
        int size = st.size[src];
        int target;
        if (!k.isStack()) target = rnd.nextInt(size + 1);
        else target = opt.frameEscapes() && rnd.nextInt(4) == 0 ? rnd.nextInt(1200) - 600 : -rnd.nextInt(size + 1);
        int delta = target - st.off[src];
        if (dst != src) emit(new Insn(ALU64 | MOV | X, dst, src, 0, 0));
        emit(new Insn(ALU64 | ADD | K, dst, 0, 0, delta));
        st.set(dst, k, target, size);
    }

    // ---- calls -------------------------------------------------------------------------------

    private void call() { call(false); }

    /** {@code call local} to a new function, passing scalars and pointers into this frame; {@code force}: whatever the depth. */
    private void call(boolean force) {
        if (functions >= MAX_FUNCTIONS || depth >= MAX_GENERATED_DEPTH || !force && (chainTo > 0 || rnd.nextInt(depth) > 1)) return;
        int nargs = rnd.nextInt(6);
        GeneratorRegs entry = new GeneratorRegs();
        for (int a = 1; a <= nargs; a++) passArgument(a, entry);
        if (opt.frameEscapes()) {
            // rarely each: the validator refuses most never-written reads, and one refusal wastes the program
            for (int r : new int[] {0, 6, 7, 8, 9}) if (rnd.nextInt(10) == 0) entry.scalar(r);
            for (int r = nargs + 1; r <= 5; r++) if (rnd.nextInt(10) == 0) entry.scalar(r);
        }
        int index = function(entry, Role.SUBPROG);
        callFixups.add(new int[] {emit(new Insn(JMP | CALL, 0, PSEUDO_CALL, 0, 0)), index});
        afterCall();
    }

    /** Whether another function (subprogram or callback) may be added here. */
    boolean mayAddFunction() { return functions < MAX_FUNCTIONS && depth < MAX_GENERATED_DEPTH && !ldAbs; }

    /** Queues a function one frame deeper, entered with {@code entry}; returns its index. */
    int function(GeneratorRegs entry, Role role) {
        int index = functions++;
        pending.add(new FunctionSpec(index, depth + 1, entry, role, orderless || role == Role.ORDERLESS_CALLBACK));
        return index;
    }

    /** {@code lddw dst, <function index>} as a callback (BPF_PSEUDO_FUNC), aimed once the function is placed. */
    void loadFunction(int dst, int index) {
        callFixups.add(new int[] {emit(new Insn(LDDW, dst, PSEUDO_FUNC, 0, 0)), index});
        emit(new Insn(0, 0, 0, 0, 0));
        st.clobber(dst);
    }

    /** {@code lddw dst, map[index]} (BPF_PSEUDO_MAP_FD with the map's index, which the loader resolves). */
    void loadMap(int dst, int index) {
        emit(new Insn(LDDW, dst, PSEUDO_MAP_FD, 0, index));
        emit(new Insn(0, 0, 0, 0, 0));
        st.clobber(dst);
    }

    /** r{@code a} = a scalar, a pointer into this frame, or a memory/outer pointer this function holds. */
    private void passArgument(int a, GeneratorRegs callee) {
        int choice = rnd.nextInt(4);
        int from = -1;
        for (int r : new int[] {6, 7, 8, 9, 0}) if (st.kind[r] == PTR_TO_MEM || st.kind[r] == PTR_TO_OUTER_STACK) from = r;
        if (choice == 0) {
            callee.set(a, PTR_TO_OUTER_STACK, framePointer(a), frame);
        } else if (choice == 1 && from >= 0) {
            emit(new Insn(ALU64 | MOV | X, a, from, 0, 0));
            callee.set(a, st.kind[from] == PTR_TO_MEM ? PTR_TO_MEM : PTR_TO_OUTER_STACK, st.off[from], st.size[from]);
        } else {
            emit(new Insn(ALU64 | MOV | K, a, 0, 0, InsnChoices.imm(rnd)));
            callee.scalar(a);
        }
        st.scalar(a);
    }

    /** {@code r = r10 - 8k} (a slot of this frame); returns the offset. */
    int framePointer(int r) {
        int k = -8 * (1 + rnd.nextInt(frame / 8));
        emit(new Insn(ALU64 | MOV | X, r, 10, 0, 0));
        emit(new Insn(ALU64 | ADD | K, r, 0, 0, k));
        st.scalar(r);
        return k;
    }

    /** r0 is the result; r1-r5 are clobbered (with frame escapes: still read now and then). */
    void afterCall() {
        st.scalar(0);
        for (int r = 1; r <= 5; r++) {
            if (opt.frameEscapes() && rnd.nextInt(10) == 0) st.scalar(r);
            else st.clobber(r);
        }
    }

    private void helperCall() {
        List<Integer> ids = object != null ? List.of(HelperIds.PROBE_READ_KERNEL, HelperIds.PROBE_READ_KERNEL_STR)
                : kernelComparable() ? FuzzConventions.HELPERS.stream().filter(h -> h != FuzzConventions.UNWIND).toList()
                : FuzzConventions.HELPERS;
        int id = rnd.nextInt(200) == 0 ? 1000 + rnd.nextInt(10) : ids.get(rnd.nextInt(ids.size()));
        switch (id) {
            case FuzzConventions.UNWIND -> setArg(1, rnd.nextInt(4) == 0 ? 0 : InsnChoices.imm(rnd));
            case 113, 115 -> { // probe_read_kernel(_str)(dst, size, src)
                Room dst = pointerArg(1);
                Room src = rnd.nextInt(4) == 0 ? oddSource() : pointerArg(3);
                setArg(2, oddSize(new Room(Math.min(dst.bytes(), src.bytes()), dst.mayPass() && src.mayPass())));
            }
            case 6 -> { // trace_printk(fmt, size, a, b, c): the format is whatever the frame or block holds
                setArg(2, oddSize(pointerArg(1)));
                for (int r = 3; r <= 5; r++) setArg(r, InsnChoices.imm(rnd));
            }
            default -> { }
        }
        emit(new Insn(JMP | CALL, 0, CALL_HELPER, 0, id));
        afterCall();
    }

    /**
     * How far a helper may go from a pointer argument: {@code bytes} to the end of its region; {@code mayPass}
     * when going past that end is a defined error (the memory block: every engine checks the same region)
     * rather than a read of whatever lies above a frame.
     */
    private record Room(int bytes, boolean mayPass) {}

    /** r3 = a number where the helper expects a pointer (null, small, -1, a page): no room at all. */
    private Room oddSource() {
        setArg(3, new int[] {0, 8, -1, 0x1000}[rnd.nextInt(4)]);
        return new Room(Integer.MAX_VALUE, true);
    }

    /**
     * r{@code a} = a pointer into this frame or the memory block, and its room. Frames are never left
     * unless frame escapes are on (then the room is 1 KiB, reaching into the caller's frame and beyond).
     */
    private Room pointerArg(int a) {
        if (memLen > 0 && st.is(6, PTR_TO_MEM) && rnd.nextBoolean()) {
            int o = rnd.nextInt(memLen + 1);
            emit(new Insn(ALU64 | MOV | X, a, 6, 0, 0));
            emit(new Insn(ALU64 | ADD | K, a, 0, 0, o - st.off[6]));
            st.scalar(a);
            // past the block's end bpf4j's helpers fail (-EFAULT) where Linux reads on into the map value's neighbour
            return new Room(memLen - o, !kernelComparable());
        }
        int k = framePointer(a);
        return opt.frameEscapes() ? new Room(1024, true) : new Room(-k, false);
    }

    /** A size for a helper buffer: 0, 1, exactly the room, one past it (where that is defined), -1, or below the room. */
    private int oddSize(Room room) {
        int limit = Math.min(room.bytes(), 1024);
        return switch (rnd.nextInt(6)) {
            case 0 -> 0;
            case 1 -> Math.min(1, limit);
            case 2 -> limit;
            case 3 -> room.mayPass() ? limit + 1 : limit;
            case 4 -> -1;
            default -> rnd.nextInt(limit + 1);
        };
    }

    void setArg(int r, int v) {
        emit(new Insn(ALU64 | MOV | K, r, 0, 0, v));
        st.scalar(r);
    }

    // ---- registers ---------------------------------------------------------------------------

    void setScalar(int r) {
        if (rnd.nextBoolean()) emit(new Insn(ALU64 | MOV | K, r, 0, 0, InsnChoices.imm(rnd)));
        else {
            long v = InsnChoices.imm64(rnd);
            emit(new Insn(LDDW, r, 0, 0, (int) v));
            emit(new Insn(0, 0, 0, 0, (int) (v >>> 32)));
        }
        st.scalar(r);
    }

    /** A register holding a scalar on every path, or -1. */
    int scalarReg() {
        int[] rs = st.all(SCALAR, 0, 9);
        return rs.length == 0 ? -1 : rs[rnd.nextInt(rs.length)];
    }

    /** A base for a memory access: r10 or a register holding a pointer, or -1. */
    private int pointerReg() {
        List<Integer> rs = new ArrayList<>();
        for (int r = 0; r <= 10; r++) if (st.kind[r].isPointer()) rs.add(r);
        return rs.isEmpty() ? -1 : rs.get(rnd.nextInt(rs.size()));
    }

    /**
     * A register that may be overwritten: never r10 or a loop's counter; inside a loop only one that
     * already holds a scalar (the body must leave every register's kind as it found it); pointers are
     * overwritten rarely ({@code mostlyScalar}: prefer registers that hold a scalar).
     */
    int writableReg(boolean mostlyScalar) {
        for (int attempt = 0; attempt < 8; attempt++) {
            int r = rnd.nextInt(10);
            if (r == loopCounter || st.is(r, PTR_TO_CTX)) continue;
            if (inLoop && !st.is(r, SCALAR)) continue;
            if (st.kind[r].isPointer() && rnd.nextInt(mostlyScalar ? 8 : 4) != 0) continue;
            return r;
        }
        return -1;
    }

    int emit(Insn i) {
        code.add(i);
        return code.size() - 1;
    }
}
