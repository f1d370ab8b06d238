package dev.bpf4j.unwind.sampling;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** A followed thread's name at a sample's time comes from its rename records, not from a later read of procfs. */
class TaskCommsTest {
    private static String at(TaskComms c, int pid, int tid, long time) { return new String(c.comm(pid, tid, time)); }

    @Test
    void aFollowedThreadIsNamedByTheRenameBeforeEachSample(@TempDir Path proc) throws Exception {
        Files.createDirectories(proc.resolve("7/task/8"));
        Files.writeString(proc.resolve("7/task/8/comm"), "first\n");
        TaskComms comms = new TaskComms(proc);
        comms.follow(7, 8);
        Files.writeString(proc.resolve("7/task/8/comm"), "third\n");   // procfs moves on; the records say when
        comms.renamed(new PerfRecord.Comm(7, 8, 1000, "second".getBytes(), false));
        comms.renamed(new PerfRecord.Comm(7, 8, 2000, "third".getBytes(), false));
        assertThat(at(comms, 7, 8, 999)).isEqualTo("first");
        assertThat(at(comms, 7, 8, 1000)).isEqualTo("second");
        assertThat(at(comms, 7, 8, 1999)).isEqualTo("second");
        assertThat(at(comms, 7, 8, 2000)).isEqualTo("third");
        assertThat(new String(comms.comm(7, 8))).isEqualTo("third");
        // a record that arrives late (another ring) still lands in time order
        comms.renamed(new PerfRecord.Comm(7, 8, 1500, "late".getBytes(), false));
        assertThat(at(comms, 7, 8, 1600)).isEqualTo("late");
        assertThat(at(comms, 7, 8, 2100)).isEqualTo("third");
    }

    @Test
    void anExecNamesTheLeaderItBecomesAndOldRenamesFoldIntoTheFirstName(@TempDir Path proc) throws Exception {
        Files.createDirectories(proc.resolve("20"));
        Files.writeString(proc.resolve("20/comm"), "sh\n");
        TaskComms comms = new TaskComms(proc);
        comms.renamed(new PerfRecord.Comm(20, 20, 500, "two".getBytes(), true));   // never followed: read, then renamed
        assertThat(at(comms, 20, 20, 499)).isEqualTo("sh");
        assertThat(at(comms, 20, 20, 500)).isEqualTo("two");
        for (int i = 0; i < TaskComms.MAX_RENAMES + 5; i++) comms.renamed(new PerfRecord.Comm(20, 20, 1000 + i, ("n" + i).getBytes(), false));
        assertThat(at(comms, 20, 20, Long.MIN_VALUE)).isEqualTo("n5");   // the oldest kept rename stands for all before it
        assertThat(at(comms, 20, 20, 1000 + TaskComms.MAX_RENAMES + 4)).isEqualTo("n" + (TaskComms.MAX_RENAMES + 4));
        comms.forget(20);
        assertThat(at(comms, 20, 20, 2000)).isEqualTo("sh");   // no longer followed: procfs again
    }
}
