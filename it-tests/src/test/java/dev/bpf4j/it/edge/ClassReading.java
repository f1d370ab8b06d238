package dev.bpf4j.it.edge;

import dev.bpf4j.ClassReferences;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.signature.SignatureReader;
import org.objectweb.asm.signature.SignatureVisitor;

import java.util.Set;
import java.util.TreeSet;

/** What {@link CompiledClass} holds, read from one class file with ASM: its public surface here, its references by bpf-core's {@link ClassReferences}. */
final class ClassReading {
    private ClassReading() {}

    private static final String OURS = "dev/bpf4j/";

    static CompiledClass read(byte[] bytes, String module) {
        ClassReader cr = new ClassReader(bytes);
        Set<String> surface = new TreeSet<>();
        boolean[] isPublic = {false};
        cr.accept(new ClassVisitor(Opcodes.ASM9) {
            @Override public void visit(int version, int access, String name, String sig, String superName, String[] interfaces) {
                isPublic[0] = (access & Opcodes.ACC_PUBLIC) != 0;
                if (sig != null) signature(surface, sig);
                if (superName != null) surface.add(superName);
                if (interfaces != null) surface.addAll(Set.of(interfaces));
            }

            @Override public void visitInnerClass(String name, String outer, String inner, int access) {
                // a member class declared private or package-private inside its outer class
                if (name.equals(cr.getClassName()) && (access & Opcodes.ACC_PUBLIC) == 0 && (access & Opcodes.ACC_PROTECTED) == 0) {
                    isPublic[0] = false;
                }
            }

            @Override public FieldVisitor visitField(int access, String name, String desc, String sig, Object value) {
                if (exposed(access)) { ClassReferences.descriptor(surface, desc); if (sig != null) signature(surface, sig); }
                return null;
            }

            @Override public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] exceptions) {
                if (exposed(access)) {
                    ClassReferences.descriptor(surface, desc);
                    if (sig != null) signature(surface, sig);
                    if (exceptions != null) surface.addAll(Set.of(exceptions));
                }
                return null;
            }
        }, ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        return new CompiledClass(binary(cr.getClassName()), module, isPublic[0], ours(surface), ours(ClassReferences.of(cr)));
    }

    private static boolean exposed(int access) {
        return (access & (Opcodes.ACC_PUBLIC | Opcodes.ACC_PROTECTED)) != 0 && (access & Opcodes.ACC_SYNTHETIC) == 0;
    }

    private static void signature(Set<String> out, String sig) {
        new SignatureReader(sig).accept(new SignatureVisitor(Opcodes.ASM9) {
            @Override public void visitClassType(String name) { out.add(name); }
        });
    }

    private static Set<String> ours(Set<String> internalNames) {
        Set<String> out = new TreeSet<>();
        for (String n : internalNames) if (n.startsWith(OURS)) out.add(binary(n));
        return out;
    }

    private static String binary(String internalName) { return internalName.replace('/', '.'); }
}
