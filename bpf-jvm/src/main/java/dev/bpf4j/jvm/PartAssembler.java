package dev.bpf4j.jvm;

import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.ConstantDynamic;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Type;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.objectweb.asm.Opcodes.*;

/**
 * One part of a program as one hidden class ({@link MethodHandles.Lookup#defineHiddenClassWithClassData}):
 * a static method per region and {@link JvmCode#run}, which picks the region of a pc. Its class data
 * is the list of the helper objects its call sites call (each a constant the call site loads, so
 * HotSpot inlines the helper) and the region of each pc. Hidden classes are unloaded with their
 * executable and never show in a Java stack walk.
 */
final class PartAssembler {
    private PartAssembler() {}

    private static final String MACHINE = Type.getInternalName(JvmMachine.class);
    private static final Handle CLASS_DATA_AT = new Handle(H_INVOKESTATIC, "java/lang/invoke/MethodHandles", "classDataAt",
            "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/Class;I)Ljava/lang/Object;", false);

    static JvmCode define(JvmCompiler.Facts f, List<int[]> regions) {
        List<Object> data = new ArrayList<>();
        int first = regions.get(0)[0], last = regions.get(regions.size() - 1)[1];
        for (int pc = first; pc < last; pc++) {
            if (f.program.helpers[pc] != null) {
                f.helperConstant[pc] = data.size();
                data.add(f.program.helpers[pc].body());
            }
            if (f.inlineMaps[pc] != null) {
                f.inlineConstant[pc] = data.size();
                data.add(f.inlineMaps[pc]);
            }
        }
        int[] regionOf = new int[last - first];
        for (int k = 0; k < regions.size(); k++) Arrays.fill(regionOf, regions.get(k)[0] - first, regions.get(k)[1] - first, k);
        int indexConstant = data.size();
        data.add(regionOf);

        String name = "dev/bpf4j/jvm/Bpf_" + simpleName(f.program.name);
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_FRAMES);
        cw.visit(V17, ACC_FINAL | ACC_SYNTHETIC, name, null, "java/lang/Object", new String[] {Type.getInternalName(JvmCode.class)});
        cw.visitSource(f.program.name, null);
        MethodVisitor init = cw.visitMethod(0, "<init>", "()V", null, null);
        init.visitCode();
        init.visitVarInsn(ALOAD, 0);
        init.visitMethodInsn(INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
        init.visitInsn(RETURN);
        init.visitMaxs(0, 0);
        init.visitEnd();
        for (int k = 0; k < regions.size(); k++) {
            int[] r = regions.get(k);
            MethodVisitor mv = cw.visitMethod(ACC_STATIC | ACC_PRIVATE, regionName(r), RegionEmitter.DESC, null, null);
            int size = RegionEmitter.emit(f, mv, r[0], r[1]);
            if (size > Regions.METHOD_LIMIT) {
                throw new IllegalStateException("region " + regionName(r) + " of '" + f.program.name + "' is " + size + " bytes of bytecode");
            }
        }
        emitRun(cw, name, regions, first, indexConstant);
        cw.visitEnd();
        try {
            MethodHandles.Lookup defined = MethodHandles.lookup().defineHiddenClassWithClassData(cw.toByteArray(), List.copyOf(data), true);
            return (JvmCode) defined.findConstructor(defined.lookupClass(), MethodType.methodType(void.class)).invoke();
        } catch (Throwable e) {
            throw new IllegalStateException("defining the bytecode of program '" + f.program.name + "': " + e, e);
        }
    }

    /** {@code run(m, r, pc)}: the region of pc; with one region, a direct call. */
    private static void emitRun(ClassWriter cw, String owner, List<int[]> regions, int first, int indexConstant) {
        MethodVisitor mv = cw.visitMethod(ACC_PUBLIC, "run", "(L" + MACHINE + ";[JI)I", null, null);
        mv.visitCode();
        if (regions.size() == 1) {
            callRegion(mv, owner, regions.get(0));
        } else {
            mv.visitLdcInsn(new ConstantDynamic("_", "[I", CLASS_DATA_AT, indexConstant));
            mv.visitVarInsn(ILOAD, 3);
            mv.visitLdcInsn(first);
            mv.visitInsn(ISUB);
            mv.visitInsn(IALOAD);
            Label[] cases = new Label[regions.size()];
            for (int k = 0; k < cases.length; k++) cases[k] = new Label();
            Label bad = new Label();
            mv.visitTableSwitchInsn(0, cases.length - 1, bad, cases);
            for (int k = 0; k < cases.length; k++) {
                mv.visitLabel(cases[k]);
                callRegion(mv, owner, regions.get(k));
            }
            mv.visitLabel(bad); // the index holds region numbers only
            mv.visitTypeInsn(NEW, "java/lang/IllegalStateException");
            mv.visitInsn(DUP);
            mv.visitMethodInsn(INVOKESPECIAL, "java/lang/IllegalStateException", "<init>", "()V", false);
            mv.visitInsn(ATHROW);
        }
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    private static void callRegion(MethodVisitor mv, String owner, int[] r) {
        mv.visitVarInsn(ALOAD, 1);
        mv.visitVarInsn(ALOAD, 2);
        mv.visitVarInsn(ILOAD, 3);
        mv.visitMethodInsn(INVOKESTATIC, owner, regionName(r), RegionEmitter.DESC, false);
        mv.visitInsn(IRETURN);
    }

    /** {@code pc_<start>_<end>}: profilers and stack traces name the slots. */
    private static String regionName(int[] r) { return "pc_" + r[0] + "_" + r[1]; }

    private static String simpleName(String program) {
        String s = program.replaceAll("[^A-Za-z0-9_]", "_");
        return s.length() > 48 ? s.substring(0, 48) : s;
    }
}
