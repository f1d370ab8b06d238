package dev.bpf4j.it.edge;

import java.util.Set;

/**
 * One compiled class of a bpf4j module: whether it is public, the bpf4j classes its public and
 * protected surface names (supertypes, fields, method parameters, results, exceptions, generic
 * arguments included) and every bpf4j class it references at all. Names are binary ({@code a.b.C$D}).
 */
record CompiledClass(String name, String module, boolean isPublic, Set<String> surface, Set<String> references) {

    String pkg() { return packageOf(name); }

    static String packageOf(String className) { return className.substring(0, className.lastIndexOf('.')); }
}
