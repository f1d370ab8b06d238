package dev.bpf4j.bench;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;
import dev.bpf4j.jit.runtime.JniEntry;
import dev.bpf4j.unwind.ExternalTool;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The gcc baseline: compiles {@code native.c} (the same {@code workloads.h} the BPF side was built
 * from) and {@code baseline.c} with {@code gcc -O2 -fno-tree-vectorize -fPIC -shared} into a
 * temporary directory, opens the library with jffi and hands out its functions.
 */
public final class GccLibrary {
    /** The flags of the comparison: -O2 without auto-vectorisation, which BPF cannot do either. */
    public static final List<String> FLAGS = List.of("-O2", "-fno-tree-vectorize", "-fPIC", "-shared");
    private static final List<String> SOURCES = List.of("workloads.h", "native.c", "baseline.c");

    private final Library library;

    private GccLibrary(Library library) { this.library = library; }

    /** True when a {@code gcc} can be run. */
    public static boolean gccAvailable() { return ExternalTool.available("gcc"); }

    /** Compiles and opens the library of the four workloads; the temporary files are deleted once it is mapped. */
    public static GccLibrary compile() { return compile(SOURCES); }

    /**
     * Compiles the {@code .c} files among {@code sources} (resources under {@code /c/}, with the headers
     * they include) into one library and opens it.
     */
    public static GccLibrary compile(List<String> sources) {
        Path dir = null;
        try {
            dir = Files.createTempDirectory("bpf4j-bench-gcc");
            for (String s : sources) copyResource("/c/" + s, dir.resolve(s));
            Path so = dir.resolve("libbpf4jbench.so");
            List<String> cmd = new ArrayList<>(List.of("gcc"));
            cmd.addAll(FLAGS);
            cmd.addAll(List.of("-o", so.toString()));
            for (String s : sources) if (s.endsWith(".c")) cmd.add(dir.resolve(s).toString());
            ExternalTool.run(cmd);
            Library lib = Library.openLibrary(so.toString(), Library.NOW | Library.LOCAL);
            if (lib == null) throw new IllegalStateException("cannot open " + so + ": " + Library.getLastError());
            return new GccLibrary(lib);
        } catch (IOException e) {
            throw new UncheckedIOException("building the gcc baseline", e);
        } finally {
            if (dir != null) deleteTree(dir); // dlopen keeps its own mapping of the file
        }
    }

    /** The function {@code u64 name(const u8 *data, u64 len)}. */
    public NativeFunction function(String name) { return new NativeFunction(name, address(name)); }

    /** The address of the library's symbol {@code name}. */
    public long address(String name) {
        long address = library.getSymbolAddress(name);
        if (address == 0) throw new IllegalStateException("symbol " + name + " not found: " + Library.getLastError());
        return address;
    }

    /** One {@code u64 f(const u8 *, u64)} of the library, called through jffi's fast numeric path. */
    public static final class NativeFunction {
        private static final Invoker INVOKER = Invoker.getInstance();
        private static final CallContext CONTEXT = CallContext.getCallContext(
                Type.UINT64, new Type[] {Type.POINTER, Type.UINT64}, CallingConvention.DEFAULT, false);
        private final String name;
        private final long address;

        NativeFunction(String name, long address) {
            this.name = name;
            this.address = address;
        }

        public String name() { return name; }

        public long call(long data, long length) { return INVOKER.invokeN2(CONTEXT, address, data, length); }

        /** The same call through the JNI entry JIT runs use ({@link JniEntry}), for a baseline that pays the JIT's call. */
        public long callThroughJniEntry(long data, long length) { return JniEntry.call(address, data, length); }
    }

    private static void copyResource(String resource, Path to) throws IOException {
        try (InputStream in = GccLibrary.class.getResourceAsStream(resource)) {
            if (in == null) throw new IllegalStateException("missing resource " + resource);
            Files.copy(in, to);
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // a leftover temp directory is harmless
        }
    }
}
