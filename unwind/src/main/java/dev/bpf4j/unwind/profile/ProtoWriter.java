package dev.bpf4j.unwind.profile;

import java.io.ByteArrayOutputStream;

/**
 * The protobuf wire format, the little of it a pprof profile needs: varints (wire type 0) and
 * length-delimited fields (wire type 2: strings, nested messages, packed repeated varints).
 */
final class ProtoWriter {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    /** An int64/uint64/bool field; zero is the default and is left out, as protobuf encoders do. */
    ProtoWriter varintField(int field, long value) {
        if (value == 0) return this;
        tag(field, 0);
        varint(value);
        return this;
    }

    /** A string field, written even when empty (a string table's entry 0 must be ""). */
    ProtoWriter stringField(int field, String value) {
        return bytesField(field, value.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    ProtoWriter messageField(int field, ProtoWriter message) { return bytesField(field, message.toByteArray()); }

    /** A packed repeated int64/uint64 field (proto3's default for repeated scalars). */
    ProtoWriter packedField(int field, long[] values) {
        if (values.length == 0) return this;
        ProtoWriter packed = new ProtoWriter();
        for (long v : values) packed.varint(v);
        return bytesField(field, packed.toByteArray());
    }

    byte[] toByteArray() { return out.toByteArray(); }

    private ProtoWriter bytesField(int field, byte[] bytes) {
        tag(field, 2);
        varint(bytes.length);
        out.writeBytes(bytes);
        return this;
    }

    private void tag(int field, int wireType) { varint(((long) field << 3) | wireType); }

    private void varint(long v) {
        while ((v & ~0x7fL) != 0) {
            out.write((int) ((v & 0x7f) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }
}
