package dev.bpf4j.fuzz;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Linux's errors are bucketed without their numbers and registers, so that one rule is counted once. */
class CampaignStatsTest {
    @Test void reasonsLoseRegistersOffsetsAndSizes() {
        assertThat(CampaignStats.shorten("R6 min value is outside of the allowed memory range"))
                .isEqualTo(CampaignStats.shorten("R1 min value is outside of the allowed memory range"))
                .isEqualTo("RN min value is outside of the allowed memory range");
        assertThat(CampaignStats.shorten("invalid bpf_context access off=75 size=4\nprocessed 3 insns"))
                .isEqualTo("invalid bpf_context access off=N size=N");
        assertThat(CampaignStats.shorten("misaligned value access off 0+0+44 size 8")).isEqualTo("misaligned value access off N+N+N size N");
        assertThat(CampaignStats.shorten(null)).isEmpty();
        // a word that merely contains an R and digits stays
        assertThat(CampaignStats.shorten("BPF_EXIT instruction in main prog")).isEqualTo("BPF_EXIT instruction in main prog");
    }
}
