package dev.bpf4j.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** {@code bpf4j --version}: the project version (filtered into version.properties by Maven) and the JVM. */
final class Version {
    private Version() {}

    static String project() {
        try (InputStream in = Version.class.getResourceAsStream("version.properties")) {
            Properties p = new Properties();
            if (in != null) p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    static String[] lines() {
        return new String[] {
            "bpf4j " + project(),
            "JVM: " + System.getProperty("java.vm.name") + " " + Runtime.version() + " (" + System.getProperty("os.arch") + ")",
        };
    }
}
