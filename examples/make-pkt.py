#!/usr/bin/env python3
"""Writes examples/pkt.bin: a 64-byte Ethernet/IPv4/UDP frame (10.0.0.1:1234 -> 10.0.0.2:53, 22 bytes
of payload), the --data-in of README's `bpf4j run ... xdp_proto_count.o` example."""
import struct, sys, os

def checksum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    s = (s & 0xffff) + (s >> 16)
    s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff

payload = b"bpf4j example packet.."                          # 22 bytes: 14 + 20 + 8 + 22 = 64
udp = struct.pack("!HHHH", 1234, 53, 8 + len(payload), 0) + payload
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
eth = bytes.fromhex("020000000002" "020000000001") + struct.pack("!H", 0x0800)
frame = eth + ip + udp
assert len(frame) == 64
out = os.path.join(os.path.dirname(os.path.abspath(sys.argv[0])), "pkt.bin")
with open(out, "wb") as f:
    f.write(frame)
