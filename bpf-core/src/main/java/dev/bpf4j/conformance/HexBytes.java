package dev.bpf4j.conformance;

import java.io.ByteArrayOutputStream;

/** Parses the suites' memory notation: hex bytes separated by whitespace ("00 ff 1a"). */
public final class HexBytes {
    private HexBytes() {}

    /**
     * Appends the bytes of one line to {@code out}. Each token is one or two hex digits; a
     * {@code #} starts a comment. Throws {@link IllegalArgumentException} naming the bad token.
     */
    public static void parseLine(String line, ByteArrayOutputStream out) {
        int hash = line.indexOf('#');
        String body = hash >= 0 ? line.substring(0, hash) : line;
        for (String token : body.trim().split("\\s+")) {
            if (token.isEmpty()) continue;
            if (token.length() > 2 || !isHex(token)) {
                throw new IllegalArgumentException("bad memory byte '" + token + "' (expected 1-2 hex digits)");
            }
            out.write(Integer.parseInt(token, 16));
        }
    }

    /** Parses a whole text (several lines) of hex bytes; errors name the 1-based line. */
    public static byte[] parse(String text) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        String[] lines = text.split("\\R", -1);
        for (int i = 0; i < lines.length; i++) {
            try {
                parseLine(lines[i], out);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("line " + (i + 1) + ": " + e.getMessage(), e);
            }
        }
        return out.toByteArray();
    }

    static boolean isHex(String s) {
        if (s.isEmpty()) return false;
        for (int i = 0; i < s.length(); i++) {
            if (Character.digit(s.charAt(i), 16) < 0) return false;
        }
        return true;
    }
}
