package dev.bpf4j.kernel.object;

import dev.bpf4j.api.MapDump;
import dev.bpf4j.kernel.BpfSyscall;
import dev.bpf4j.maps.Cpus;
import dev.bpf4j.object.MapSpec;
import dev.bpf4j.maps.MapType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * A kernel map's contents in the shape of {@link MapDump#entries}: keys sorted unsigned bytewise,
 * per-CPU maps with one value per possible CPU, queues and stacks oldest / top first (popped and
 * pushed back), ring buffers drained ({@link KernelRingBuf}), program arrays and stack-trace maps empty.
 */
final class KernelMapDump {
    private KernelMapDump() {}

    static List<MapDump.Entry> entries(MapSpec m, int fd) {
        switch (m.type()) {
            case PROG_ARRAY: case STACK_TRACE: case XSKMAP: return List.of(); // xskmap: lookups from user space are -EOPNOTSUPP
            case QUEUE: case STACK: return queueStack(m, fd);
            case RINGBUF: return KernelRingBuf.drain(fd, m.maxEntries()).stream().map(r -> new MapDump.Entry(null, List.of(r))).toList();
            default: break;
        }
        boolean percpu = m.type().isPercpu();
        int stride = (m.valueSize() + 7) & ~7;
        List<byte[]> keys = new ArrayList<>();
        for (byte[] k = BpfSyscall.mapGetNextKey(fd, null, m.keySize()); k != null; k = BpfSyscall.mapGetNextKey(fd, k, m.keySize())) keys.add(k);
        keys.sort(Comparator.comparing((byte[] k) -> k, Arrays::compareUnsigned));
        List<MapDump.Entry> out = new ArrayList<>();
        for (byte[] k : keys) {
            byte[] v = BpfSyscall.mapLookup(fd, k, percpu ? stride * Cpus.possible() : m.valueSize());
            if (v == null) continue;
            List<byte[]> values = new ArrayList<>();
            if (percpu) {
                for (int c = 0; c < Cpus.possible(); c++) values.add(Arrays.copyOfRange(v, c * stride, c * stride + m.valueSize()));
            } else {
                values.add(v);
            }
            out.add(new MapDump.Entry(k, values));
        }
        return out;
    }

    private static List<MapDump.Entry> queueStack(MapSpec m, int fd) {
        List<byte[]> popped = new ArrayList<>();
        for (byte[] v = BpfSyscall.mapPop(fd, m.valueSize()); v != null; v = BpfSyscall.mapPop(fd, m.valueSize())) popped.add(v);
        boolean stack = m.type() == MapType.STACK;
        for (int i = 0; i < popped.size(); i++) BpfSyscall.mapPush(fd, popped.get(stack ? popped.size() - 1 - i : i));
        List<MapDump.Entry> out = new ArrayList<>();
        for (byte[] v : popped) out.add(new MapDump.Entry(null, List.of(v)));
        return out;
    }
}
