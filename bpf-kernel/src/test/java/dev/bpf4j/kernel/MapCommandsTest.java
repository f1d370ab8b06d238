package dev.bpf4j.kernel;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** BPF_MAP_FREEZE and the key-less push / pop of queues and stacks. */
class MapCommandsTest {
    private static final int QUEUE = 22, STACK = 23;

    @BeforeEach void needsBpf() { KernelAssumptions.assumeBpf(); }

    @Test void aFrozenMapRefusesUpdatesFromUserSpace() {
        int fd = BpfSyscall.mapCreate(BpfSyscall.BPF_MAP_TYPE_ARRAY, 4, 8, 1, BpfSyscall.BPF_F_RDONLY_PROG, "frozen");
        try {
            BpfSyscall.mapUpdate(fd, new byte[4], new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, BpfSyscall.BPF_ANY);
            BpfSyscall.mapFreeze(fd);
            assertThatThrownBy(() -> BpfSyscall.mapUpdate(fd, new byte[4], new byte[8], BpfSyscall.BPF_ANY))
                    .isInstanceOf(KernelBpfException.class).hasMessageContaining("EPERM");
            assertThat(BpfSyscall.mapLookup(fd, new byte[4], 8)).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
        } finally {
            BpfSyscall.close(fd);
        }
    }

    @Test void queuesPopOldestFirstAndStacksNewestFirst() {
        for (int type : new int[] {QUEUE, STACK}) {
            int fd = BpfSyscall.mapCreate(type, 0, 1, 4, 0, "qs");
            try {
                for (byte v = 1; v <= 3; v++) BpfSyscall.mapPush(fd, new byte[] {v});
                byte first = BpfSyscall.mapPop(fd, 1)[0];
                assertThat(first).isEqualTo((byte) (type == QUEUE ? 1 : 3));
                BpfSyscall.mapPop(fd, 1);
                BpfSyscall.mapPop(fd, 1);
                assertThat(BpfSyscall.mapPop(fd, 1)).isNull();
            } finally {
                BpfSyscall.close(fd);
            }
        }
    }

    @Test void badBtfIsRefusedWithTheKernelsLog() {
        byte[] header = {(byte) 0x9f, (byte) 0xeb, 1, 0, 24, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
        assertThatThrownBy(() -> BpfSyscall.btfLoad(header)).isInstanceOf(KernelBpfException.class)
                .hasMessageContaining("BPF_BTF_LOAD");
    }
}
