package dev.bpf4j.jit.runtime;

import com.kenai.jffi.MemoryIO;
import com.kenai.jffi.PageManager;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Pages holding generated code, W^X: mapped read-write, written, then flipped to read-execute
 * before anything runs; never writable and executable at once. {@link #close} unmaps them.
 */
public final class ExecutableMemory implements AutoCloseable {
    private static final PageManager PAGES = PageManager.getInstance();
    private static final MemoryIO IO = MemoryIO.getInstance();
    /** Mappings made and not yet unmapped, and their bytes (whole pages): what {@link #mappedNow} reports. */
    private static final AtomicLong MAPPINGS = new AtomicLong(), MAPPED_BYTES = new AtomicLong();

    private final long address;
    private final int pages;
    private final int size;
    private boolean closed;

    private ExecutableMemory(long address, int pages, int size) {
        this.address = address;
        this.pages = pages;
        this.size = size;
    }

    /** Copies {@code code} into fresh pages and makes them read-execute. */
    public static ExecutableMemory of(byte[] code) {
        if (code.length == 0) throw new IllegalArgumentException("no code");
        long pageSize = PAGES.pageSize();
        int pages = (int) ((code.length + pageSize - 1) / pageSize);
        long address = PAGES.allocatePages(pages, PageManager.PROT_READ | PageManager.PROT_WRITE);
        if (address == 0) throw new OutOfMemoryError("cannot map " + pages + " pages for JIT code");
        IO.putByteArray(address, code, 0, code.length);
        PAGES.protectPages(address, pages, PageManager.PROT_READ | PageManager.PROT_EXEC);
        MAPPINGS.incrementAndGet();
        MAPPED_BYTES.addAndGet(pages * pageSize);
        return new ExecutableMemory(address, pages, code.length);
    }

    public long address() { return address; }

    /** Bytes of code (the mapping is rounded up to whole pages). */
    public int size() { return size; }

    public long mappedBytes() { return pages * PAGES.pageSize(); }

    /** The JIT code mapped in this process now (programs, stubs, shared generated functions). */
    public record Mapped(long mappings, long bytes) {}

    public static Mapped mappedNow() { return new Mapped(MAPPINGS.get(), MAPPED_BYTES.get()); }

    /** Unmaps the pages; idempotent, and callable from any thread (a cleaner's included). */
    @Override public synchronized void close() {
        if (closed) return;
        closed = true;
        PAGES.freePages(address, pages);
        MAPPINGS.decrementAndGet();
        MAPPED_BYTES.addAndGet(-mappedBytes());
    }
}
