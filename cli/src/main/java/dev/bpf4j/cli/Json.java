package dev.bpf4j.cli;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

/** {@code -j/--json}: one JSON document per command, on one line (as {@code bpftool -j}), through Gson. */
final class Json {
    private Json() {}

    private static final Gson GSON = new GsonBuilder().disableHtmlEscaping().serializeNulls().create();

    static String print(JsonElement e) { return GSON.toJson(e); }

    /** A JSON text bpf4j already made (bpftool's map dump form), as a tree to nest in a document. */
    static JsonElement parse(String json) { return JsonParser.parseString(json); }

    static JsonObject object(String key, String value) {
        JsonObject o = new JsonObject();
        o.addProperty(key, value);
        return o;
    }
}
