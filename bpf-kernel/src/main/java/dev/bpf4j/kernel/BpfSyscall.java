package dev.bpf4j.kernel;

import static dev.bpf4j.kernel.BpfAttr.*;

import java.nio.charset.StandardCharsets;

/**
 * The bpf(2) system call, one method per command bpf4j needs. Each builds its {@code union bpf_attr}
 * off-heap (layout in {@link BpfAttr}), calls {@code syscall(321, cmd, &attr, sizeof attr)} and turns
 * a failure into {@link KernelBpfException} with the errno name (and the verifier log for
 * BPF_PROG_LOAD). File descriptors returned here belong to the caller: {@link #close(int)} them.
 */
public final class BpfSyscall {
    private BpfSyscall() {}

    /** Map flag BPF_F_RDONLY_PROG: the program may only read the map. */
    public static final int BPF_F_RDONLY_PROG = 1 << 7;
    /** Map types bpf4j creates. */
    public static final int BPF_MAP_TYPE_HASH = 1, BPF_MAP_TYPE_ARRAY = 2;
    /** Update flags. */
    public static final long BPF_ANY = 0, BPF_NOEXIST = 1, BPF_EXIST = 2;

    /** Size of the verifier log buffer used when a load is retried to explain a rejection. */
    static final int LOG_SIZE = 1 << 20;
    private static final int MAX_EAGAIN_RETRIES = 5;

    private static long bpf(int cmd, OffHeap attr) {
        return NativeSyscall.call(NativeSyscall.SYS_BPF, cmd, attr.address(), SIZE, 0, 0);
    }

    private static long bpfChecked(String name, int cmd, OffHeap attr) {
        long r = bpf(cmd, attr);
        if (r < 0) throw new KernelBpfException("bpf(" + name + ")", (int) -r, null);
        return r;
    }

    /** BPF_MAP_CREATE; returns the map fd. */
    public static int mapCreate(int mapType, int keySize, int valueSize, int maxEntries, int mapFlags, String name) {
        return mapCreate(mapType, keySize, valueSize, maxEntries, mapFlags, name, 0, 0, 0);
    }

    /** BPF_MAP_CREATE with the map's BTF ({@code btfFd} 0: none) and its key and value type ids; returns the map fd. */
    public static int mapCreate(int mapType, int keySize, int valueSize, int maxEntries, int mapFlags, String name,
                                int btfFd, int btfKeyTypeId, int btfValueTypeId) {
        return mapCreate(new MapCreateRequest(mapType, keySize, valueSize, maxEntries, mapFlags, name, 0, btfFd, btfKeyTypeId, btfValueTypeId));
    }

    /** BPF_MAP_CREATE with every attribute bpf4j sets, the inner map fd of a map-in-map included; returns the map fd. */
    public static int mapCreate(MapCreateRequest req) {
        try (OffHeap attr = OffHeap.allocate(SIZE)) {
            if (req.btfFd() > 0) {
                attr.putInt(MapCreate.BTF_FD, req.btfFd());
                attr.putInt(MapCreate.BTF_KEY_TYPE_ID, req.btfKeyTypeId());
                attr.putInt(MapCreate.BTF_VALUE_TYPE_ID, req.btfValueTypeId());
            }
            attr.putInt(MapCreate.MAP_TYPE, req.mapType());
            attr.putInt(MapCreate.KEY_SIZE, req.keySize());
            attr.putInt(MapCreate.VALUE_SIZE, req.valueSize());
            attr.putInt(MapCreate.MAX_ENTRIES, req.maxEntries());
            attr.putInt(MapCreate.MAP_FLAGS, req.mapFlags());
            attr.putInt(MapCreate.INNER_MAP_FD, req.innerMapFd());
            attr.putBytes(MapCreate.MAP_NAME, objName(req.name()));
            return (int) bpfChecked("BPF_MAP_CREATE", BPF_MAP_CREATE, attr);
        }
    }

    /** The kernel's id of a map ({@code bpf_map_info.id}): what a map-in-map lookup from user space returns. */
    public static int mapId(int mapFd) {
        try (OffHeap attr = OffHeap.allocate(SIZE); OffHeap info = OffHeap.allocate(MapInfoLayout.SIZE)) {
            attr.putInt(InfoByFd.BPF_FD, mapFd);
            attr.putInt(InfoByFd.INFO_LEN, MapInfoLayout.SIZE);
            attr.putLong(InfoByFd.INFO, info.address());
            bpfChecked("BPF_OBJ_GET_INFO_BY_FD", BPF_OBJ_GET_INFO_BY_FD, attr);
            return info.getInt(MapInfoLayout.ID);
        }
    }

    /** BPF_MAP_LOOKUP_ELEM; returns the value, or null when the key is absent (ENOENT). */
    public static byte[] mapLookup(int mapFd, byte[] key, int valueSize) {
        try (OffHeap attr = OffHeap.allocate(SIZE); OffHeap k = OffHeap.of(key); OffHeap v = OffHeap.allocate(valueSize)) {
            attr.putInt(MapElem.MAP_FD, mapFd);
            attr.putLong(MapElem.KEY, k.address());
            attr.putLong(MapElem.VALUE, v.address());
            long r = bpf(BPF_MAP_LOOKUP_ELEM, attr);
            if (r == -SyscallErrno.ENOENT) return null;
            if (r < 0) throw new KernelBpfException("bpf(BPF_MAP_LOOKUP_ELEM)", (int) -r, null);
            return v.bytes(0, valueSize);
        }
    }

    /** BPF_MAP_UPDATE_ELEM with {@code flags} ({@link #BPF_ANY}, {@link #BPF_NOEXIST}, {@link #BPF_EXIST}). */
    public static void mapUpdate(int mapFd, byte[] key, byte[] value, long flags) {
        try (OffHeap attr = OffHeap.allocate(SIZE); OffHeap k = OffHeap.of(key); OffHeap v = OffHeap.of(value)) {
            attr.putInt(MapElem.MAP_FD, mapFd);
            attr.putLong(MapElem.KEY, k.address());
            attr.putLong(MapElem.VALUE, v.address());
            attr.putLong(MapElem.FLAGS, flags);
            bpfChecked("BPF_MAP_UPDATE_ELEM", BPF_MAP_UPDATE_ELEM, attr);
        }
    }

    /**
     * BPF_MAP_LOOKUP_AND_DELETE_ELEM without a key: pops a queue's oldest or a stack's newest value;
     * null when the map is empty (ENOENT).
     */
    public static byte[] mapPop(int mapFd, int valueSize) {
        try (OffHeap attr = OffHeap.allocate(SIZE); OffHeap v = OffHeap.allocate(valueSize)) {
            attr.putInt(MapElem.MAP_FD, mapFd);
            attr.putLong(MapElem.VALUE, v.address());
            long r = bpf(BPF_MAP_LOOKUP_AND_DELETE_ELEM, attr);
            if (r == -SyscallErrno.ENOENT) return null;
            if (r < 0) throw new KernelBpfException("bpf(BPF_MAP_LOOKUP_AND_DELETE_ELEM)", (int) -r, null);
            return v.bytes(0, valueSize);
        }
    }

    /** BPF_MAP_UPDATE_ELEM without a key: pushes {@code value} onto a queue or stack. */
    public static void mapPush(int mapFd, byte[] value) {
        try (OffHeap attr = OffHeap.allocate(SIZE); OffHeap v = OffHeap.of(value)) {
            attr.putInt(MapElem.MAP_FD, mapFd);
            attr.putLong(MapElem.VALUE, v.address());
            bpfChecked("BPF_MAP_UPDATE_ELEM", BPF_MAP_UPDATE_ELEM, attr);
        }
    }

    /** BPF_MAP_FREEZE: user space may no longer write the map (libbpf freezes {@code .rodata}; bpf_snprintf wants its format in such a map). */
    public static void mapFreeze(int mapFd) {
        try (OffHeap attr = OffHeap.allocate(SIZE)) {
            attr.putInt(MapElem.MAP_FD, mapFd);
            bpfChecked("BPF_MAP_FREEZE", BPF_MAP_FREEZE, attr);
        }
    }

    /**
     * BPF_BTF_LOAD of raw BTF ({@code .BTF} layout: header, types, strings); returns the BTF fd. On a
     * refusal the load is repeated with a log so that the exception says why.
     */
    public static int btfLoad(byte[] btf) {
        for (int level = 0; ; level = 1) {
            try (OffHeap attr = OffHeap.allocate(SIZE); OffHeap data = OffHeap.of(btf); OffHeap log = OffHeap.allocate(level > 0 ? LOG_SIZE : 0)) {
                attr.putLong(BtfLoad.BTF, data.address());
                attr.putInt(BtfLoad.BTF_SIZE, btf.length);
                if (level > 0) {
                    attr.putLong(BtfLoad.LOG_BUF, log.address());
                    attr.putInt(BtfLoad.LOG_SIZE, LOG_SIZE);
                    attr.putInt(BtfLoad.LOG_LEVEL, 1);
                }
                long r = bpf(BPF_BTF_LOAD, attr);
                if (r >= 0) return (int) r;
                if (level > 0) throw new KernelBpfException("bpf(BPF_BTF_LOAD)", (int) -r, log.cString().strip());
            }
        }
    }

    /** BPF_MAP_DELETE_ELEM; returns false when the key was absent (ENOENT). */
    public static boolean mapDelete(int mapFd, byte[] key) {
        try (OffHeap attr = OffHeap.allocate(SIZE); OffHeap k = OffHeap.of(key)) {
            attr.putInt(MapElem.MAP_FD, mapFd);
            attr.putLong(MapElem.KEY, k.address());
            long r = bpf(BPF_MAP_DELETE_ELEM, attr);
            if (r == -SyscallErrno.ENOENT) return false;
            if (r < 0) throw new KernelBpfException("bpf(BPF_MAP_DELETE_ELEM)", (int) -r, null);
            return true;
        }
    }

    /** BPF_MAP_GET_NEXT_KEY: the key after {@code key} (the first key when {@code key} is null), or null at the end. */
    public static byte[] mapGetNextKey(int mapFd, byte[] key, int keySize) {
        try (OffHeap attr = OffHeap.allocate(SIZE); OffHeap k = key == null ? null : OffHeap.of(key);
             OffHeap next = OffHeap.allocate(keySize)) {
            attr.putInt(MapElem.MAP_FD, mapFd);
            attr.putLong(MapElem.KEY, k == null ? 0 : k.address());
            attr.putLong(MapElem.NEXT_KEY, next.address());
            long r = bpf(BPF_MAP_GET_NEXT_KEY, attr);
            if (r == -SyscallErrno.ENOENT) return null;
            if (r < 0) throw new KernelBpfException("bpf(BPF_MAP_GET_NEXT_KEY)", (int) -r, null);
            return next.bytes(0, keySize);
        }
    }

    /**
     * BPF_PROG_LOAD; returns the program fd. When the kernel refuses and the request asked for no
     * log, the load is repeated with log level 1 so that the exception carries the verifier's reason.
     */
    public static int progLoad(ProgLoadRequest req) {
        int level = req.logLevel();
        for (int attempt = 0; ; attempt++) {
            try (OffHeap attr = OffHeap.allocate(SIZE); OffHeap insns = OffHeap.of(req.insns());
                 OffHeap license = OffHeap.cString(req.license());
                 OffHeap funcInfo = OffHeap.of(req.funcInfo()); OffHeap lineInfo = OffHeap.of(req.lineInfo());
                 OffHeap log = OffHeap.allocate(level > 0 ? LOG_SIZE : 0)) {
                attr.putInt(ProgLoad.PROG_TYPE, req.progType());
                attr.putInt(ProgLoad.INSN_CNT, req.insnCount());
                attr.putLong(ProgLoad.INSNS, insns.address());
                attr.putLong(ProgLoad.LICENSE, license.address());
                if (level > 0) {
                    attr.putInt(ProgLoad.LOG_LEVEL, level);
                    attr.putInt(ProgLoad.LOG_SIZE, LOG_SIZE);
                    attr.putLong(ProgLoad.LOG_BUF, log.address());
                }
                attr.putInt(ProgLoad.PROG_FLAGS, req.progFlags());
                attr.putBytes(ProgLoad.PROG_NAME, objName(req.name()));
                attr.putInt(ProgLoad.EXPECTED_ATTACH_TYPE, req.expectedAttachType());
                if (req.btfFd() > 0) {
                    attr.putInt(ProgLoad.PROG_BTF_FD, req.btfFd());
                    attr.putInt(ProgLoad.FUNC_INFO_REC_SIZE, ProgLoadRequest.FUNC_INFO_SIZE);
                    attr.putLong(ProgLoad.FUNC_INFO, funcInfo.address());
                    attr.putInt(ProgLoad.FUNC_INFO_CNT, req.funcInfo().length / ProgLoadRequest.FUNC_INFO_SIZE);
                    attr.putInt(ProgLoad.LINE_INFO_REC_SIZE, ProgLoadRequest.LINE_INFO_SIZE);
                    attr.putLong(ProgLoad.LINE_INFO, lineInfo.address());
                    attr.putInt(ProgLoad.LINE_INFO_CNT, req.lineInfo().length / ProgLoadRequest.LINE_INFO_SIZE);
                }
                long r = bpf(BPF_PROG_LOAD, attr);
                if (r >= 0) return (int) r;
                int errno = (int) -r;
                if (errno == SyscallErrno.EAGAIN && attempt < MAX_EAGAIN_RETRIES) continue; // as libbpf: the verifier was interrupted
                if (level == 0) { level = 1; continue; }
                throw new KernelBpfException("bpf(BPF_PROG_LOAD) of '" + req.name() + "'", errno, log.cString().strip());
            }
        }
    }

    /** BPF_PROG_TEST_RUN. */
    public static TestRunResult progTestRun(int progFd, TestRunRequest req) {
        try (OffHeap attr = OffHeap.allocate(SIZE);
             OffHeap dataIn = req.dataIn() == null ? null : OffHeap.of(req.dataIn());
             OffHeap dataOut = req.dataOutSize() == 0 ? null : OffHeap.allocate(req.dataOutSize());
             OffHeap ctxIn = req.ctxIn() == null ? null : OffHeap.of(req.ctxIn());
             OffHeap ctxOut = req.ctxOutSize() == 0 ? null : OffHeap.allocate(req.ctxOutSize())) {
            attr.putInt(TestRun.PROG_FD, progFd);
            if (dataIn != null) {
                attr.putInt(TestRun.DATA_SIZE_IN, dataIn.size());
                attr.putLong(TestRun.DATA_IN, dataIn.address());
            }
            if (dataOut != null) {
                attr.putInt(TestRun.DATA_SIZE_OUT, dataOut.size());
                attr.putLong(TestRun.DATA_OUT, dataOut.address());
            }
            if (ctxIn != null) {
                attr.putInt(TestRun.CTX_SIZE_IN, ctxIn.size());
                attr.putLong(TestRun.CTX_IN, ctxIn.address());
            }
            if (ctxOut != null) {
                attr.putInt(TestRun.CTX_SIZE_OUT, ctxOut.size());
                attr.putLong(TestRun.CTX_OUT, ctxOut.address());
            }
            attr.putInt(TestRun.REPEAT, req.repeat());
            bpfChecked("BPF_PROG_TEST_RUN", BPF_PROG_TEST_RUN, attr);
            byte[] data = dataOut == null ? new byte[0] : dataOut.bytes(0, Math.min(dataOut.size(), attr.getInt(TestRun.DATA_SIZE_OUT)));
            byte[] ctx = ctxOut == null ? new byte[0] : ctxOut.bytes(0, Math.min(ctxOut.size(), attr.getInt(TestRun.CTX_SIZE_OUT)));
            byte[] ctxBack = ctxIn == null ? new byte[0] : ctxIn.bytes(0, ctxIn.size());
            return new TestRunResult(attr.getInt(TestRun.RETVAL), attr.getInt(TestRun.DURATION), data, ctx, ctxBack);
        }
    }

    /** BPF_OBJ_GET_INFO_BY_FD on a program fd. */
    public static ProgInfo progInfo(int progFd) {
        try (OffHeap attr = OffHeap.allocate(SIZE); OffHeap info = OffHeap.allocate(ProgInfoLayout.SIZE)) {
            attr.putInt(InfoByFd.BPF_FD, progFd);
            attr.putInt(InfoByFd.INFO_LEN, ProgInfoLayout.SIZE);
            attr.putLong(InfoByFd.INFO, info.address());
            bpfChecked("BPF_OBJ_GET_INFO_BY_FD", BPF_OBJ_GET_INFO_BY_FD, attr);
            byte[] name = info.bytes(ProgInfoLayout.NAME, 16);
            int n = 0;
            while (n < name.length && name[n] != 0) n++;
            return new ProgInfo(info.getInt(ProgInfoLayout.TYPE), info.getInt(ProgInfoLayout.ID),
                    info.bytes(ProgInfoLayout.TAG, 8), info.getInt(ProgInfoLayout.JITED_PROG_LEN),
                    info.getInt(ProgInfoLayout.XLATED_PROG_LEN), new String(name, 0, n, StandardCharsets.UTF_8));
        }
    }

    /** close(2); closing a negative fd does nothing. */
    public static void close(int fd) { NativeSyscall.close(fd); }

    /**
     * A BPF_OBJ_NAME_LEN (16) byte, NUL-terminated object name. The kernel accepts only
     * {@code [A-Za-z0-9_.]}, so other characters become '_' and the name is cut at 15 bytes.
     */
    static byte[] objName(String name) {
        byte[] out = new byte[16];
        for (int i = 0, j = 0; i < name.length() && j < 15; i++) {
            char c = name.charAt(i);
            out[j++] = (byte) (Character.isLetterOrDigit(c) && c < 128 || c == '_' || c == '.' ? c : '_');
        }
        return out;
    }
}
