package dev.bpf4j.bench;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;

/**
 * The four benchmark workloads of {@code src/main/c/workloads.h}: each is one BPF function (raw
 * bytecode extracted from the committed clang output, entry r1 = data, r2 = length) and one gcc
 * function {@code native_<name>} with the same (data, len) signature, run over the same input.
 */
public enum Workload {
    /** FNV-1a 64 over a 1500-byte buffer (an Ethernet MTU). */
    FNV1A("fnv1a") {
        @Override public byte[] input() { return WorkloadInputs.randomBytes(1500, 0xF1A); }
    },
    /** Ethernet + IPv4 + TCP header parse of one valid 64-byte packet. */
    PARSE("parse") {
        @Override public byte[] input() { return WorkloadInputs.tcpPacket(); }
    },
    /** 10,000 rounds of xorshift64 with multiply, divide and modulo; the seed is the first 8 bytes. */
    XORSHIFT("xorshift") {
        @Override public byte[] input() { return WorkloadInputs.randomBytes(16, 0x5EED); }
    },
    /** Bubble sort of 64 u32 read from the data buffer. */
    SORT("sort") {
        @Override public byte[] input() { return WorkloadInputs.randomBytes(64 * 4, 0x5027); }
    };

    private final String id;

    Workload(String id) { this.id = id; }

    /** The short name used in sections, resource files, JMH params and the report. */
    public String id() { return id; }

    /** The gcc-compiled function in native.c. */
    public String nativeSymbol() { return "native_" + id; }

    /** A fresh copy of this workload's input bytes (deterministic). */
    public abstract byte[] input();

    /** The BPF program, decoded from {@code /workloads/<id>.bin}. */
    public Program program() {
        String resource = "/workloads/" + id + ".bin";
        try (InputStream in = Workload.class.getResourceAsStream(resource)) {
            if (in == null) throw new IllegalStateException("missing resource " + resource + " (run bench/build-workloads.sh)");
            byte[] raw = in.readAllBytes();
            if (raw.length == 0 || raw.length % Insn.SIZE != 0) {
                throw new IllegalStateException(resource + ": " + raw.length + " bytes is not a whole number of instructions");
            }
            return new Program(id, Arrays.asList(Insn.decodeAll(raw)));
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + resource, e);
        }
    }

    /** The workload whose {@link #id()} is {@code id}. */
    public static Workload byId(String id) {
        for (Workload w : values()) if (w.id.equals(id)) return w;
        throw new IllegalArgumentException("unknown workload '" + id + "' (known: fnv1a, parse, xorshift, sort)");
    }
}
