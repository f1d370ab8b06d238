package dev.bpf4j.helpers;

import dev.bpf4j.maps.Errno;

import java.nio.charset.StandardCharsets;

/**
 * The printf dialect of {@code bpf_trace_printk} and {@code bpf_snprintf}, checked as the kernel's
 * {@code bpf_bprintf_prepare} checks it and rendered as its {@code bstr_printf}: no ASCII control characters
 * (bytes from 0x80 up are text and copied as they are);
 * conversions {@code %d %i %u %x %X} with optional {@code l}/{@code ll}, {@code %c}, {@code %s},
 * {@code %p} (also {@code %pK %px %ps %pS %pB}), {@code %pks %pus}, {@code %pi4 %pI4 %pi6 %pI6};
 * flags {@code 0 + - space} and a width; {@code %%}. Anything else, or more conversions than arguments,
 * is {@code -EINVAL}. Without {@code l} an argument is its low 32 bits.
 *
 * <p>Pointers print as 16 hex digits, as {@code %px} (bpf4j has no kernel addresses to hide); {@code %ps},
 * {@code %pS} and {@code %pB} print {@code 0x<hex>} (no symbolizer here).
 */
final class Bprintf {
    private Bprintf() {}

    /** {@code MAX_BPRINTF_VARARGS}. */
    static final int MAX_VARARGS = 12;
    /** {@code MAX_TRACE_PRINTK_VARARGS}. */
    static final int MAX_TRACE_PRINTK_VARARGS = 3;
    /** {@code MAX_BPRINTF_BUF}: trace_printk output and the room for string arguments. */
    static final int MAX_BUF = 512;

    /** Reads what pointer arguments point to, without faulting; null on fault. */
    interface Memory {
        byte[] string(long address, int max);
        byte[] bytes(long address, int n);
    }

    /** A format the kernel rejects: carries the errno. */
    static final class FormatError extends Exception {
        final int errno;
        FormatError(int errno, String message) {
            super(message);
            this.errno = errno;
        }
    }

    /** Renders {@code fmt} (no NUL) with {@code args}; the bytes, untruncated. */
    static byte[] format(byte[] fmt, long[] args, Memory mem) throws FormatError {
        StringBuilder out = new StringBuilder();
        int spec = 0;
        int strRoom = MAX_BUF;
        for (int i = 0; i < fmt.length; i++) {
            int c = fmt[i] & 0xff;
            // Linux 6.18 refuses ASCII control characters but lets bytes >= 0x80 (UTF-8 text) through, copied as they are
            if (c < 0x80 && !isPrint(c) && !isSpace(c)) throw new FormatError(Errno.EINVAL, String.format("byte 0x%02x at %d is a control character", c, i));
            if (c != '%') {
                out.append((char) c);
                continue;
            }
            if (at(fmt, i + 1) == '%') {
                out.append('%');
                i++;
                continue;
            }
            if (spec >= args.length) throw new FormatError(Errno.EINVAL, "more conversions than the " + args.length + " arguments");
            long arg = args[spec++];
            i++;
            boolean left = false, zero = false, plus = false, space = false;
            for (;; i++) {
                int f = at(fmt, i);
                if (f == '-') left = true;
                else if (f == '0') zero = true;
                else if (f == '+') plus = true;
                else if (f == ' ') space = true;
                else break;
            }
            int width = 0;
            if (at(fmt, i) >= '1' && at(fmt, i) <= '9') {
                while (at(fmt, i) >= '0' && at(fmt, i) <= '9') width = Math.min(1 << 12, width * 10 + at(fmt, i++) - '0');
            }
            int conv = at(fmt, i);
            String text;
            boolean numeric = false;
            if (conv == 'p') {
                int n1 = at(fmt, i + 1), n2 = at(fmt, i + 2);
                if ((n1 == 'k' || n1 == 'u') && n2 == 's') {
                    i += 2;
                    text = string(fmt, i, arg, mem, strRoom);
                    strRoom -= text.length() + 1;
                } else if (n1 == 0 || isSpace(n1) || isPunct(n1)) {
                    text = hex16(arg);
                } else if (n1 == 'K' || n1 == 'x') {
                    text = hex16(arg);
                    i++;
                } else if (n1 == 's' || n1 == 'S' || n1 == 'B') {
                    text = "0x" + Long.toHexString(arg);
                    i++;
                } else if ((n1 == 'i' || n1 == 'I') && (n2 == '4' || n2 == '6')) {
                    i += 2;
                    text = ip(n1 == 'I', n2 == '4' ? 4 : 16, mem.bytes(arg, n2 == '4' ? 4 : 16));
                } else {
                    throw new FormatError(Errno.EINVAL, "unsupported pointer format %p" + (char) n1);
                }
            } else if (conv == 's') {
                text = string(fmt, i, arg, mem, strRoom);
                strRoom -= text.length() + 1;
            } else if (conv == 'c') {
                text = String.valueOf((char) (arg & 0xff));
            } else {
                boolean isLong = false;
                if (conv == 'l') { isLong = true; conv = at(fmt, ++i); }
                if (conv == 'l') conv = at(fmt, ++i);
                numeric = true;
                text = number(conv, isLong ? arg : arg & 0xffffffffL, isLong, plus, space);
            }
            out.append(pad(text, width, left, zero && !left && numeric));
        }
        return out.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String string(byte[] fmt, int i, long ptr, Memory mem, int room) throws FormatError {
        int next = at(fmt, i + 1);
        if (next != 0 && !isSpace(next) && !isPunct(next)) throw new FormatError(Errno.EINVAL, "%s must be followed by a space, punctuation or the end");
        if (room <= 1) throw new FormatError(Errno.ENOSPC, "string arguments exceed " + MAX_BUF + " bytes");
        byte[] s = mem.string(ptr, room - 1);
        return s == null ? "" : new String(s, StandardCharsets.ISO_8859_1); // a faulting read prints as ""
    }

    private static String number(int conv, long v, boolean isLong, boolean plus, boolean space) throws FormatError {
        switch (conv) {
            case 'd':
            case 'i': {
                long s = isLong ? v : (int) v;
                String t = Long.toString(s);
                return s >= 0 && plus ? "+" + t : s >= 0 && space ? " " + t : t;
            }
            case 'u': return Long.toUnsignedString(v);
            case 'x': return Long.toHexString(v);
            case 'X': return Long.toHexString(v).toUpperCase();
            default: throw new FormatError(Errno.EINVAL, "unsupported conversion '" + (conv == 0 ? "\\0" : String.valueOf((char) conv)) + "'");
        }
    }

    private static String pad(String t, int width, boolean left, boolean zero) {
        if (t.length() >= width) return t;
        String fill = String.valueOf(zero ? '0' : ' ').repeat(width - t.length());
        if (left) return t + fill;
        if (zero && !t.isEmpty() && (t.charAt(0) == '-' || t.charAt(0) == '+' || t.charAt(0) == ' ')) {
            return t.charAt(0) + fill + t.substring(1);
        }
        return fill + t;
    }

    private static String hex16(long v) {
        String h = Long.toHexString(v);
        return "0".repeat(16 - h.length()) + h;
    }

    /** %pI4 "1.2.3.4", %pi4 "001.002.003.004", %pI6 "0001:...:0008", %pi6 32 hex digits; zeroes on fault. */
    private static String ip(boolean upper, int n, byte[] b) {
        if (b == null) b = new byte[n];
        StringBuilder s = new StringBuilder();
        if (n == 4) {
            for (int k = 0; k < 4; k++) {
                if (k > 0) s.append('.');
                s.append(upper ? Integer.toString(b[k] & 0xff) : String.format("%03d", b[k] & 0xff));
            }
        } else {
            for (int k = 0; k < 16; k++) {
                s.append(String.format("%02x", b[k] & 0xff));
                if (upper && (k & 1) == 1 && k != 15) s.append(':');
            }
        }
        return s.toString();
    }

    private static int at(byte[] fmt, int i) { return i < fmt.length ? fmt[i] & 0xff : 0; }

    private static boolean isPrint(int c) { return c >= 0x20 && c < 0x7f; }

    private static boolean isSpace(int c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

    private static boolean isPunct(int c) { return isPrint(c) && c != ' ' && !Character.isLetterOrDigit(c); }
}
