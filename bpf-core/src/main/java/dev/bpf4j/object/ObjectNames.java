package dev.bpf4j.object;

/** libbpf's naming of objects and of the maps it makes for global data. */
final class ObjectNames {
    private ObjectNames() {}

    /** The kernel's BPF_OBJ_NAME_LEN, including the NUL. */
    static final int BPF_OBJ_NAME_LEN = 16;

    /** libbpf's {@code bpf_object_new}: the base name, cut at its first '.', at most 15 characters. */
    static String objectName(String fileName) {
        String base = fileName;
        int slash = base.lastIndexOf('/');
        if (slash >= 0) base = base.substring(slash + 1);
        if (base.length() > BPF_OBJ_NAME_LEN - 1) base = base.substring(0, BPF_OBJ_NAME_LEN - 1);
        int dot = base.indexOf('.');
        return dot >= 0 ? base.substring(0, dot) : base;
    }

    /**
     * libbpf's {@code internal_map_name}: at most 8 characters of the object name then the section
     * name (".data", ".rodata", ...); a section name with a second dot (".data.custom") is used alone.
     * Characters the kernel does not allow become '_'.
     */
    static String internalMapName(String objectName, String section) {
        int sfxLen = Math.max(7, section.length());
        if (sfxLen >= BPF_OBJ_NAME_LEN) sfxLen = BPF_OBJ_NAME_LEN - 1;
        int pfxLen = section.indexOf('.', 1) >= 0 ? 0 : Math.min(BPF_OBJ_NAME_LEN - sfxLen - 1, objectName.length());
        String raw = objectName.substring(0, pfxLen) + section.substring(0, Math.min(sfxLen, section.length()));
        StringBuilder out = new StringBuilder(raw.length());
        for (char c : raw.toCharArray()) out.append(Character.isLetterOrDigit(c) && c < 128 || c == '_' || c == '.' ? c : '_');
        return out.toString();
    }
}
