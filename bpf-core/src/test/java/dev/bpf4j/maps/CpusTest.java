package dev.bpf4j.maps;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CpusTest {
    @Test void parsesKernelCpuLists() {
        assertThat(Cpus.parseCount("0")).isEqualTo(1);
        assertThat(Cpus.parseCount("0-3\n")).isEqualTo(4);
        assertThat(Cpus.parseCount("0-3,8,10-11")).isEqualTo(12);
        assertThatThrownBy(() -> Cpus.parseCount("")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test void possibleMatchesSysfsAndCurrentIsInRange() throws Exception {
        Path p = Path.of("/sys/devices/system/cpu/possible");
        if (Files.exists(p)) assertThat(Cpus.possible()).isEqualTo(Cpus.parseCount(Files.readString(p)));
        for (int i = 0; i < 100; i++) assertThat(Cpus.current()).isBetween(0, Cpus.possible() - 1);
    }
}
