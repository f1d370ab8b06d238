package dev.bpf4j.it.edge;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.signature.SignatureReader;
import org.objectweb.asm.signature.SignatureVisitor;

import java.util.Set;
import java.util.TreeSet;

/** What {@link CompiledClass} holds, read from one class file with ASM (the constant pool for references, as jdeps). */
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
                if (exposed(access)) { descriptor(surface, desc); if (sig != null) signature(surface, sig); }
                return null;
            }

            @Override public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] exceptions) {
                if (exposed(access)) {
                    descriptor(surface, desc);
                    if (sig != null) signature(surface, sig);
                    if (exceptions != null) surface.addAll(Set.of(exceptions));
                }
                return null;
            }
        }, ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        return new CompiledClass(binary(cr.getClassName()), module, isPublic[0], ours(surface), ours(references(cr)));
    }

    private static boolean exposed(int access) {
        return (access & (Opcodes.ACC_PUBLIC | Opcodes.ACC_PROTECTED)) != 0 && (access & Opcodes.ACC_SYNTHETIC) == 0;
    }

    /** Class entries, name-and-type and method-type descriptors of the constant pool. */
    private static Set<String> references(ClassReader cr) {
        Set<String> out = new TreeSet<>();
        char[] buf = new char[cr.getMaxStringLength()];
        for (int i = 1; i < cr.getItemCount(); i++) {
            int item = cr.getItem(i);
            if (item == 0) continue; // the second slot of a long or double
            switch (cr.readByte(item - 1)) {
                case 7 -> { String n = cr.readUTF8(item, buf); if (n.startsWith("[")) descriptor(out, n); else out.add(n); }
                case 12 -> descriptor(out, cr.readUTF8(item + 2, buf));
                case 16 -> descriptor(out, cr.readUTF8(item, buf));
                default -> { }
            }
        }
        return out;
    }

    private static void descriptor(Set<String> out, String desc) {
        if (desc.startsWith("(")) {
            Type m = Type.getMethodType(desc);
            type(out, m.getReturnType());
            for (Type a : m.getArgumentTypes()) type(out, a);
        } else {
            type(out, Type.getType(desc));
        }
    }

    private static void type(Set<String> out, Type t) {
        if (t.getSort() == Type.ARRAY) t = t.getElementType();
        if (t.getSort() == Type.OBJECT) out.add(t.getInternalName());
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
