package dev.bpf4j.unwind.profile;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Expected names as {@code c++filt} prints them, without the parameter lists. */
class CxxNamesTest {
    @Test
    void nestedAndLocalNamesLoseTheirParameters() {
        assertThat(CxxNames.shortName("_ZN6Thread8call_runEv")).isEqualTo("Thread::call_run");
        assertThat(CxxNames.shortName("_ZL19thread_native_entryP6Thread")).isEqualTo("thread_native_entry");
        assertThat(CxxNames.shortName("_ZN9JavaCalls11call_helperEP9JavaValueRK12methodHandleP17JavaCallArgumentsP10JavaThread")).isEqualTo("JavaCalls::call_helper");
        assertThat(CxxNames.shortName("_ZNK12MemAllocator8allocateEv")).isEqualTo("MemAllocator::allocate");
        assertThat(CxxNames.shortName("_ZN6ThreadC2Ev")).isEqualTo("Thread::Thread");
        assertThat(CxxNames.shortName("_ZN6ThreadD1Ev")).isEqualTo("Thread::~Thread");
        assertThat(CxxNames.shortName("_Z3fooi")).isEqualTo("foo");
    }

    @Test
    void whatItCannotDecodeStaysAsIs() {
        assertThat(CxxNames.shortName("JVM_Clone")).isEqualTo("JVM_Clone");
        assertThat(CxxNames.shortName("_ZN12GrowableArrayIiE4pushERKi")).isEqualTo("_ZN12GrowableArrayIiE4pushERKi");
        assertThat(CxxNames.shortName("_ZNSt6vectorIiSaIiEE9push_backERKi")).isEqualTo("_ZNSt6vectorIiSaIiEE9push_backERKi");
        assertThat(CxxNames.shortName("_ZN99short")).isEqualTo("_ZN99short");
        assertThat(CxxNames.shortName("_Z")).isEqualTo("_Z");
    }
}
