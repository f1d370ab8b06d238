package dev.bpf4j.it.perf;

/**
 * The JVM {@link OtherJvmPerfMapTest} samples: prints {@code ready}, waits for a line on stdin, then
 * spends {@code args[0]} ms of CPU in {@link #spin}, compiled by C2.
 */
public final class PerfMapChild {
    public static void main(String[] args) throws Exception {
        long sink = 0;
        for (int i = 0; i < 20_000; i++) sink += spin(1000);   // compiled before sampling starts
        System.out.println("ready");
        System.out.flush();
        System.in.read();
        long end = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000L;
        while (System.nanoTime() < end) sink += spin(200_000);
        System.out.println(sink == 42 ? "" : "done");
    }

    static long spin(long n) {
        long a = 0;
        for (long i = 0; i < n; i++) a += i ^ (a >> 3);
        return a;
    }
}
