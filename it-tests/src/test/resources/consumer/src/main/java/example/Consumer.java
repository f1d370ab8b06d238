package example;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.RunOptions;
import dev.bpf4j.api.RunResult;
import dev.bpf4j.runtime.BpfException;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/** Usage: Consumer OBJ.o PACKET: runs xdp_proto_count on each engine and prints what a user would check. */
public final class Consumer {
    public static void main(String[] args) throws Exception {
        byte[] packet = Files.readAllBytes(Path.of(args[1]));
        for (String engine : new String[] {"interp", "jit"}) {
            try (BpfObject obj = BpfObject.open(Path.of(args[0])).maxEntries("proto_counts", 4).load(engine)) {
                RunResult r = obj.program("xdp_proto_count").run(RunOptions.packet(packet));
                ByteBuffer v = ByteBuffer.wrap(obj.map("proto_counts").lookup(new byte[4]).orElseThrow()).order(ByteOrder.LITTLE_ENDIAN);
                System.out.println(engine + ": retval " + r.retval() + ", packets " + v.getLong(0) + ", bytes " + v.getLong(8));
                try {
                    obj.map("nope");
                } catch (BpfException e) {                  // one catch for every error of the API
                    System.out.println(engine + ": " + e.getMessage());
                }
            }
        }
        try {
            BpfObject.open(Path.of(args[0])).load("kernel");
        } catch (BpfException e) {
            System.out.println("kernel: " + e.getMessage());
        }
    }
}
