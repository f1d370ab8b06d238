package dev.bpf4j.conformance;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/** Splits a {@code .data} text into sections and parses each one; see {@link DataFile}. */
final class DataFileParser {
    private final String file;

    /** One section: its name, the 1-based line of its header and its lines. */
    private record Section(String name, int headerLine, List<String> lines) {}

    DataFileParser(String file) { this.file = file; }

    DataFile parse(String text) {
        Map<String, Section> sections = new HashMap<>();
        Optional<String> skip = Optional.empty();
        Section current = null;
        String[] lines = text.split("\\R", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            int lineNo = i + 1;
            if (line.startsWith("--")) {
                String name = line.substring(2).trim();
                if (sections.containsKey(name)) {
                    throw error(lineNo, "section '-- " + name + "' appears twice (first at line "
                            + sections.get(name).headerLine() + ")");
                }
                current = new Section(name, lineNo, new ArrayList<>());
                sections.put(name, current);
                if (!DataFile.SECTIONS.contains(name) && !DataFile.IGNORED_SECTIONS.contains(name) && skip.isEmpty()) {
                    skip = Optional.of("unsupported section '-- " + name + "' at line " + lineNo);
                }
            } else if (current != null) {
                current.lines().add(line);
            } else if (!line.isBlank() && !line.trim().startsWith("#")) {
                throw error(lineNo, "text before the first section: '" + line.trim() + "'");
            }
        }
        Section asm = sections.get("asm");
        Section raw = sections.get("raw");
        Section result = sections.get("result");
        Section err = sections.get("error");
        if (skip.isEmpty()) {
            if (asm == null && raw == null) throw error(0, "no program: expected a '-- asm' or '-- raw' section");
            if (result == null && err == null) throw error(0, "no expectation: expected a '-- result' or '-- error' section");
            if (result != null && err != null) throw error(err.headerLine(), "both '-- result' and '-- error' sections: expect one outcome");
        }
        // With both, as in the public suites, -- raw is the program and -- asm only its listing.
        return new DataFile(file,
                Optional.ofNullable(raw == null ? asm : null).map(this::asmText),
                Optional.ofNullable(raw).map(this::rawWords),
                Optional.ofNullable(sections.get("mem")).map(this::memBytes),
                result == null ? OptionalLong.empty() : OptionalLong.of(resultValue(result)),
                Optional.ofNullable(err).map(this::errorText),
                skip);
    }

    /** The assembly with blank lines in front, so line n of the text is line n of the file. */
    private String asmText(Section s) {
        StringBuilder sb = new StringBuilder();
        sb.append("\n".repeat(s.headerLine()));
        for (String line : s.lines()) sb.append(line).append('\n');
        return sb.toString();
    }

    private long[] rawWords(Section s) {
        List<Long> words = new ArrayList<>();
        forEachDataLine(s, (lineNo, line) -> {
            int hash = line.indexOf('#');
            String body = hash >= 0 ? line.substring(0, hash).trim() : line;
            String hex = body.startsWith("0x") || body.startsWith("0X") ? body.substring(2) : body;
            if (hex.length() > 16 || !HexBytes.isHex(hex)) {
                throw error(lineNo, "bad raw instruction '" + body + "' (expected one 64-bit hex word)");
            }
            words.add(Long.parseUnsignedLong(hex, 16));
        });
        if (words.isEmpty()) throw error(s.headerLine(), "empty '-- raw' section");
        return words.stream().mapToLong(Long::longValue).toArray();
    }

    private byte[] memBytes(Section s) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        forEachDataLine(s, (lineNo, body) -> {
            try {
                HexBytes.parseLine(body, out);
            } catch (IllegalArgumentException e) {
                throw error(lineNo, e.getMessage());
            }
        });
        return out.toByteArray();
    }

    private long resultValue(Section s) {
        List<Long> values = new ArrayList<>();
        forEachDataLine(s, (lineNo, body) -> values.add(parseNumber(lineNo, body)));
        if (values.size() != 1) {
            throw error(s.headerLine(), "'-- result' must hold exactly one number, found " + values.size());
        }
        return values.get(0);
    }

    private String errorText(Section s) {
        List<String> parts = new ArrayList<>();
        forEachDataLine(s, (lineNo, body) -> parts.add(body));
        return String.join(" ", parts);
    }

    /** A 64-bit number: 0x-prefixed hex or decimal, negative values wrap to two's complement. */
    private long parseNumber(int lineNo, String body) {
        String s = body.replace("_", "");
        boolean negative = s.startsWith("-");
        if (negative) s = s.substring(1);
        try {
            BigInteger v = s.startsWith("0x") || s.startsWith("0X")
                    ? new BigInteger(s.substring(2), 16) : new BigInteger(s, 10);
            if (v.bitLength() > 64) throw error(lineNo, "result '" + body + "' does not fit in 64 bits");
            return negative ? -v.longValue() : v.longValue();
        } catch (NumberFormatException e) {
            throw error(lineNo, "bad result '" + body + "' (expected a hex 0x... or decimal number)");
        }
    }

    private interface LineAction { void accept(int lineNo, String body); }

    /** Calls {@code action} for each non-blank, non-comment line, trimmed. */
    private static void forEachDataLine(Section s, LineAction action) {
        for (int i = 0; i < s.lines().size(); i++) {
            String body = s.lines().get(i).trim();
            if (body.isEmpty() || body.startsWith("#")) continue;
            action.accept(s.headerLine() + 1 + i, body);
        }
    }

    private DataFileException error(int line, String reason) { return new DataFileException(file, line, reason); }
}
