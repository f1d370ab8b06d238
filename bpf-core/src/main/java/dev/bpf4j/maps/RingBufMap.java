package dev.bpf4j.maps;

import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeForm;
import dev.bpf4j.runtime.NativeMemory;

import java.util.List;

/**
 * {@code BPF_MAP_TYPE_RINGBUF} with the kernel's memory layout ({@code kernel/bpf/ringbuf.c}): a
 * page-aligned block holding the consumer position (first page), the producer position (second page)
 * and {@code max_entries} (a power of two, page aligned) data bytes. Records are an 8-byte header
 * ({@code u32 len} with {@link #BUSY_BIT}/{@link #DISCARD_BIT}, {@code u32 pg_off}) followed by the
 * sample, padded to 8 bytes. Producers reserve under a spin lock in the block ({@link RingBufProducerLock}, a
 * word the JIT's native {@code bpf_ringbuf_output} takes too: {@link NativeForm.RingBufOutput} has the
 * layout) and commit by clearing BUSY with an atomic exchange; the consumer ({@link RingBufferReader}) reads in order and advances the consumer position.
 *
 * <p>The kernel maps the data pages twice so that a record crossing the end is contiguous. Here the data
 * area is followed by a second copy-area of the same size: a sample crossing the end is written there by
 * the program and its tail copied to the start of the data area on commit, before BUSY is cleared — the
 * consumer therefore sees the same bytes as through the kernel's double mapping. After the copy-area comes
 * the reservation table ({@code reservations}), which commit believes instead of the header.
 */
public final class RingBufMap extends BpfMap {
    public static final int BUSY_BIT = 1 << 31;
    public static final int DISCARD_BIT = 1 << 30;
    public static final int HDR_SZ = 8;
    static final int PAGE = 4096;
    /** {@code RINGBUF_MAX_RECORD_SZ}. */
    static final long MAX_RECORD = 0xffffffffL / 4;

    private final long raw;
    private final long base;
    private final long data;
    private final long mask;
    private final RingBufProducerLock producerLock;
    private final OpenWord openWord = new OpenWord();
    final Object signal = new Object();
    /**
     * The reservation table: a u32 per 8-byte slot of the data area, {@code size | BUSY} while the record
     * starting there is reserved and not committed, else 0. The kernel's commit trusts the header before the
     * sample; here a program may write that header (its region is the whole data area, and loads may skip the
     * verifier), so the truth is kept after the copy-area, in no program's region, where native code
     * ({@code RingBufCommitEmitter}) and Java read and claim it alike. Costs {@code max_entries / 2} bytes.
     */
    private final long reservations;

    public RingBufMap(MapDefinition def) {
        super(def);
        CreateChecks.require(def, def.type() == MapType.RINGBUF, "not a ring buffer map type");
        CreateChecks.flags(def, MapFlags.BPF_F_NUMA_NODE);
        long n = Integer.toUnsignedLong(def.maxEntries());
        CreateChecks.require(def, def.keySize() == 0 && def.valueSize() == 0 && n != 0 && (n & (n - 1)) == 0
                && n % PAGE == 0, "ring buffers need key_size 0, value_size 0 and a page-aligned power-of-two max_entries");
        if (n > 1L << 30) throw CreateChecks.fail(def, Errno.E2BIG, "ring buffer larger than 1 GiB");
        this.mask = n - 1;
        this.raw = NativeMemory.allocate(PAGE + 2L * PAGE + 2 * n + n / 2);
        this.base = (raw + PAGE - 1) & -PAGE;
        this.data = base + NativeForm.RingBufOutput.DATA;
        this.reservations = data + 2 * n;
        NativeMemory.setMemory(base, 2L * PAGE, (byte) 0);
        NativeMemory.setMemory(reservations, n / 2, (byte) 0);
        NativeMemory.putLong(base + NativeForm.RingBufOutput.MASK, mask);
        this.producerLock = new RingBufProducerLock(base + NativeForm.RingBufOutput.PRODUCER_LOCK);
    }

    /** 0 once the map is closed (before its memory goes): native producers test it first. */
    public long openWord() { return openWord.address(); }

    /** Start of the block (the consumer-position page); record headers' {@code pg_off} count pages from here. */
    public long baseAddress() { return base; }
    public long consumerPosAddress() { return base; }
    public long producerPosAddress() { return base + PAGE; }
    public long dataAddress() { return data; }
    /** Data size in bytes ({@code max_entries}). */
    public long capacity() { return mask + 1; }

    public long consumerPos() {
        checkOpen();
        return NativeMemory.getLongVolatile(consumerPosAddress());
    }

    public long producerPos() {
        checkOpen();
        return NativeMemory.getLongVolatile(producerPosAddress());
    }

    /** Programs may write reserved samples: the data area and its copy-area. */
    @Override public List<MemoryRegion> regions() {
        return List.of(new MemoryRegion("map " + def.name() + " ringbuf data", data, 2 * capacity(), true));
    }

    /** {@code __bpf_ringbuf_reserve}: the sample address, or 0 when it does not fit or {@code size} is too large. */
    public long reserve(long size) {
        checkOpen();
        if (Long.compareUnsigned(size, MAX_RECORD) > 0) return 0;
        long len = roundUp8(size + HDR_SZ);
        if (len > capacity()) return 0;
        long cons = consumerPos();
        long prod, sample;
        producerLock.lock();
        try {
            prod = NativeMemory.getLongVolatile(producerPosAddress());
            long newProd = prod + len;
            // out of space: the producer may not run more than (size - 1) bytes ahead of the consumer
            if (newProd - cons > mask) return 0;
            long hdr = data + (prod & mask);
            NativeMemory.putInt(hdr, (int) size | BUSY_BIT);
            NativeMemory.putInt(hdr + 4, (int) ((hdr - base) / PAGE));
            NativeMemory.putInt(reservations + (prod & mask) / 2, (int) size | BUSY_BIT); // before the release below
            sample = hdr + HDR_SZ;
            NativeMemory.getAndSetLong(producerPosAddress(), newProd); // release, pairs with the consumer's acquire
        } finally {
            producerLock.unlock();
        }
        return sample;
    }

    /**
     * {@code bpf_ringbuf_commit}: submits or discards a reserved sample. False when {@code sample} is not a
     * pending reservation of this ring buffer (the kernel verifier guarantees it is; here the helper reports it).
     * The reservation's entry is claimed first (compare-and-swap to 0: of two commits of one sample, one wins),
     * then the header is written again from it, whatever the program wrote there, and BUSY cleared last.
     */
    public boolean commit(long sample, long flags, boolean discard) {
        checkOpen();
        long hdr = sample - HDR_SZ;
        long recOff = hdr - data;
        if (Long.compareUnsigned(recOff, mask) > 0 || (recOff & 7) != 0) return false;
        long entry = reservations + recOff / 2;
        int len = NativeMemory.getIntVolatile(entry);
        if ((len & BUSY_BIT) == 0 || !NativeMemory.casInt(entry, len, 0)) return false;
        int size = len & ~BUSY_BIT;
        long end = recOff + roundUp8(size + (long) HDR_SZ);
        if (end > capacity()) NativeMemory.copy(data + capacity(), data, end - capacity()); // wrapped tail
        NativeMemory.putInt(hdr + 4, (int) ((hdr - base) / PAGE));
        NativeMemory.getAndSetInt(hdr, discard ? size | DISCARD_BIT : size); // clears BUSY: release to the consumer
        long consOff = consumerPos() & mask;
        if ((flags & MapFlags.BPF_RB_FORCE_WAKEUP) != 0
                || (consOff == recOff && (flags & MapFlags.BPF_RB_NO_WAKEUP) == 0)) {
            synchronized (signal) { signal.notifyAll(); }
        }
        return true;
    }

    /** True when {@code sample} is reserved and not yet committed. */
    public boolean isPending(long sample) {
        long recOff = sample - HDR_SZ - data;
        return isOpen() && Long.compareUnsigned(recOff, mask) <= 0 && (recOff & 7) == 0
                && (NativeMemory.getIntVolatile(reservations + recOff / 2) & BUSY_BIT) != 0;
    }

    /** {@code bpf_ringbuf_output} from native memory: 0, {@code -EINVAL} for bad flags, {@code -EAGAIN} when full. */
    public int output(long src, long size, long flags) {
        if ((flags & ~(MapFlags.BPF_RB_NO_WAKEUP | MapFlags.BPF_RB_FORCE_WAKEUP)) != 0) return -Errno.EINVAL;
        long rec = reserve(size);
        if (rec == 0) return -Errno.EAGAIN;
        NativeMemory.copy(src, rec, size);
        commit(rec, flags, false);
        return 0;
    }

    /** Java-side producer, as {@code bpf_ringbuf_output}; throws {@link BpfMapException} ({@code EAGAIN} when full). */
    public void output(byte[] record, long flags) {
        checkOpen();
        if ((flags & ~(MapFlags.BPF_RB_NO_WAKEUP | MapFlags.BPF_RB_FORCE_WAKEUP)) != 0) {
            throw new BpfMapException(Errno.EINVAL, describe() + ": bad ringbuf output flags " + flags);
        }
        long rec = reserve(record.length);
        if (rec == 0) throw new BpfMapException(Errno.EAGAIN, describe() + ": no room for " + record.length + " bytes");
        NativeMemory.write(rec, record, 0, record.length);
        commit(rec, flags, false);
    }

    /** {@code bpf_ringbuf_query}. */
    public long query(long flags) {
        checkOpen();
        if (flags == MapFlags.BPF_RB_AVAIL_DATA) return producerPos() - consumerPos();
        if (flags == MapFlags.BPF_RB_RING_SIZE) return capacity();
        if (flags == MapFlags.BPF_RB_CONS_POS) return consumerPos();
        if (flags == MapFlags.BPF_RB_PROD_POS) return producerPos();
        return 0;
    }

    /** A consumer of this ring buffer's records. Use one reader at a time (the kernel has one consumer position). */
    public RingBufferReader reader() { return new RingBufferReader(this); }

    // Ring buffers have no keys: lookup/update/delete are -ENOTSUPP, as in the kernel.
    @Override protected byte[] read(byte[] key) { throw new BpfMapException(Errno.ENOTSUPP, describe() + ": lookup not supported"); }
    @Override protected int write(byte[] key, byte[] value, long flags, boolean allCpus) { return -Errno.ENOTSUPP; }
    @Override protected int remove(byte[] key) { return -Errno.ENOTSUPP; }
    @Override protected int next(byte[] key, byte[] out) { return -Errno.ENOTSUPP; }
    @Override public long programLookup(long keyAddress) { return 0; }
    @Override public int programUpdate(long keyAddress, long valueAddress, long flags) { return -Errno.ENOTSUPP; }
    @Override public int programDelete(long keyAddress) { return -Errno.ENOTSUPP; }

    @Override protected void free() {
        openWord.close(); // before the block goes
        synchronized (signal) { signal.notifyAll(); }
        NativeMemory.free(raw);
    }
}
