package dev.bpf4j.verifier;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.runtime.HelperRegistry;

import static dev.bpf4j.isa.Opcodes.*;

/**
 * First pass: walks the slots in order, checks each instruction on its own (opcode, reserved
 * fields, register numbers, r10 read-only, helper ids) and gives every slot its {@link InsnForm}.
 * The second slot of an lddw is marked {@link InsnForm#LDDW_HI}, so later passes can tell a
 * jump into the middle of an lddw.
 */
final class SlotChecker {
    private final Reject reject;
    private final HelperRegistry helpers;
    private final ValidatorFeatures features;

    SlotChecker(Reject reject, HelperRegistry helpers, ValidatorFeatures features) {
        this.reject = reject;
        this.helpers = helpers;
        this.features = features;
    }

    InsnForm[] check(Insn[] insns) {
        InsnForm[] forms = new InsnForm[insns.length];
        for (int pc = 0; pc < insns.length; pc++) {
            Insn insn = insns[pc];
            InsnForm form = classify(pc, insn, pc + 1 < insns.length ? insns[pc + 1] : null);
            checkRegisters(pc, insn, form);
            forms[pc] = form;
            if (form == InsnForm.LDDW) forms[++pc] = InsnForm.LDDW_HI;
        }
        return forms;
    }

    private InsnForm classify(int pc, Insn insn, Insn next) {
        switch (cls(insn.opcode())) {
            case ALU: case ALU64: return AluRules.check(reject, pc, insn);
            case JMP: case JMP32: return JumpRules.check(reject, pc, insn, helpers);
            case LD:
                return insn.opcode() == LDDW
                        ? MemoryRules.checkLddw(reject, pc, insn, next, features)
                        : MemoryRules.checkLegacyLoad(reject, pc, insn, features);
            case LDX: return MemoryRules.checkLdx(reject, pc, insn);
            case ST: return MemoryRules.checkSt(reject, pc, insn);
            default: return MemoryRules.checkStx(reject, pc, insn);
        }
    }

    /** Register fields in use must name r0-r10, and nothing may write r10 (the frame pointer). */
    private void checkRegisters(int pc, Insn insn, InsnForm form) {
        int used = RegisterEffects.reads(form, insn) | RegisterEffects.writes(form, insn);
        if ((used & ~RegisterEffects.VALID) != 0) {
            boolean badDst = (used & RegisterEffects.bit(insn.dst()) & ~RegisterEffects.VALID) != 0;
            String field = badDst ? "dst" : "src";
            int reg = badDst ? insn.dst() : insn.src();
            throw reject.at(pc, "invalid register r" + reg + " in " + field + " of " + OpcodeNames.of(insn.opcode())
                    + ": registers are r0-r10");
        }
        if ((RegisterEffects.writes(form, insn) & RegisterEffects.R10) != 0) {
            throw reject.at(pc, "r10 is the read-only frame pointer: " + OpcodeNames.of(insn.opcode())
                    + " may not write it; copy it to another register first");
        }
    }
}
