package dev.bpf4j;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

import java.util.Set;
import java.util.TreeSet;

/**
 * The classes a class file names, read as jdeps does: its constant pool's class entries, member-reference
 * and method-type descriptors, and the descriptors of its own fields and methods. Names are internal
 * ({@code a/b/C$D}). Shared by bpf-core's {@code PackageCyclesTest} and it-tests' API edge (bpf-core's
 * test jar carries only this class).
 */
public final class ClassReferences {
    private ClassReferences() {}

    public static Set<String> of(ClassReader cr) {
        Set<String> out = new TreeSet<>();
        char[] buf = new char[cr.getMaxStringLength()];
        for (int i = 1; i < cr.getItemCount(); i++) {
            int item = cr.getItem(i);
            if (item == 0) continue; // the second slot of a long or double
            switch (cr.readByte(item - 1)) {
                case 7 -> { String n = cr.readUTF8(item, buf); if (n.startsWith("[")) descriptor(out, n); else out.add(n); } // Class
                case 12 -> descriptor(out, cr.readUTF8(item + 2, buf)); // NameAndType
                case 16 -> descriptor(out, cr.readUTF8(item, buf));     // MethodType
                default -> { }
            }
        }
        cr.accept(new ClassVisitor(Opcodes.ASM9) {
            @Override public FieldVisitor visitField(int access, String name, String desc, String sig, Object value) {
                descriptor(out, desc);
                return null;
            }

            @Override public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] exceptions) {
                descriptor(out, desc);
                return null;
            }
        }, ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        return out;
    }

    /** Adds the classes of a field or method descriptor (array element types, not primitives). */
    public static void descriptor(Set<String> out, String desc) {
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
}
