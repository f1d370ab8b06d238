package dev.bpf4j.unwind.profile;

/**
 * A short, readable name for an Itanium-mangled C++ symbol, as {@code perf report} shows the JVM's
 * own functions: the qualified name without parameters ({@code _ZN6Thread8call_runEv} becomes
 * {@code Thread::call_run}, {@code _ZL19thread_native_entryP6Thread} {@code thread_native_entry}).
 * Only plain and nested source names, constructors and destructors are decoded; anything else
 * (templates, operators, substitutions inside the name) is returned unchanged, never guessed.
 */
final class CxxNames {
    private CxxNames() {}

    static String shortName(String symbol) {
        if (!symbol.startsWith("_Z")) return symbol;
        int[] at = {2};
        if (peek(symbol, at[0]) == 'L') at[0]++;              // internal linkage
        StringBuilder out = new StringBuilder();
        if (peek(symbol, at[0]) == 'N') {
            at[0]++;
            while (peek(symbol, at[0]) == 'K' || peek(symbol, at[0]) == 'V') at[0]++;   // const/volatile member function
            String last = null;
            while (peek(symbol, at[0]) != 'E') {
                String part;
                char c = peek(symbol, at[0]);
                if ((c == 'C' || c == 'D') && last != null && Character.isDigit(peek(symbol, at[0] + 1))) {
                    part = (c == 'D' ? "~" : "") + last;          // C1/C2/C3 constructor, D0/D1/D2 destructor
                    at[0] += 2;
                } else {
                    part = sourceName(symbol, at);
                    if (part == null) return symbol;
                }
                if (out.length() > 0) out.append("::");
                out.append(part);
                last = part;
            }
            return out.length() == 0 ? symbol : out.toString();
        }
        String name = sourceName(symbol, at);
        return name == null ? symbol : name;
    }

    /** {@code <length><identifier>} at {@code at[0]}, advancing it; null when that is not what is there. */
    private static String sourceName(String s, int[] at) {
        int i = at[0], len = 0;
        if (!Character.isDigit(peek(s, i))) return null;
        while (Character.isDigit(peek(s, i))) {
            len = len * 10 + (s.charAt(i) - '0');
            if (len > s.length()) return null;
            i++;
        }
        if (i + len > s.length()) return null;
        at[0] = i + len;
        return s.substring(i, i + len);
    }

    private static char peek(String s, int i) { return i < s.length() ? s.charAt(i) : '\0'; }
}
