package dev.bpf4j.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.OpenObject;
import dev.bpf4j.cli.trace.StackCounts;
import dev.bpf4j.cli.trace.StackCount;
import dev.bpf4j.cli.trace.TraceRun;
import dev.bpf4j.cli.trace.TraceSession;
import dev.bpf4j.cli.trace.TraceTarget;
import dev.bpf4j.object.ProgramType;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.runtime.BpfNotFoundException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.api.Engines;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code bpf4j trace LIB.so --attach F[,F...] --call ENTRY}: attaches a kprobe-type program (the
 * bundled stackcount, or {@code --object OBJ.o --program P}) to native functions of a library,
 * calls {@code long ENTRY(long)} once, detaches and prints what the program counted — folded stacks
 * for a stack map + counting map, every map as JSON for a user object. Per engine a header line
 * {@code == ENGINE}; with {@code --engine both} a last line says whether the engines agree (exit 1
 * when not). Bad input (library, symbol, entry not patchable, object, program) exits 2.
 * {@code --attach-return F[,F...]} attaches the program to the functions' returns instead or as
 * well (a uretprobe: stacks then start at the return site in the caller).
 * {@code --duration S} keeps the probes attached for S seconds (or until the entry returns, or
 * Ctrl-C) while this process runs: see {@link TraceSession} for what "this process" covers.
 */
final class TraceCommand implements Command {
    private static final List<String> ENGINE_CHOICES = List.of("interp", "jit", "all", "both");

    @Override public String name() { return "trace"; }
    @Override public String summary() { return "probe functions of a native library while calling an entry of it and print the folded stacks that reached them"; }
    @Override public String usage() {
        return "bpf4j trace LIB.so (--attach FUNC[,FUNC...] | --attach-return FUNC[,FUNC...] | both) (--call ENTRY [--arg N] | --duration S | both) [--object OBJ.o --program P] [--engine interp|jit|all] [-j]"
                + " [--perf-map]";
    }

    @Override public List<Opt> options() {
        return List.of(Opt.valued("--attach", "FUNC[,FUNC...]", "the library's functions to probe at their entry", null),
                Opt.valued("--attach-return", "FUNC[,FUNC...]", "the library's functions to probe at their return (uretprobe-style: ip = the"
                        + " return site in the caller, ax = the return value)", null),
                Opt.valued("--call", "ENTRY", "the function to call once, as long ENTRY(long)", null),
                Opt.valued("--arg", "N", "its argument", "0"),
                Opt.valued("--duration", "S", "keep the probes attached for S seconds (the entry, if any, on its own thread; ends early when it"
                        + " returns or on Ctrl-C); without --call, this process's own calls", null),
                Opt.file("--object", "OBJ.o", "a kprobe program to attach instead of the bundled stackcount"),
                Opt.valued("--program", "P", "the program of --object (default: its only program)", null),
                Opt.bpf4jEngine("interp"), Opt.JSON, Opt.PERF_MAP);
    }

    private static List<String> functionList(Args args, String option) {
        List<String> names = args.option(option).map(v -> Arrays.stream(v.split(",")).map(String::trim).toList()).orElse(List.of());
        if (names.stream().anyMatch(String::isEmpty)) throw new UsageException(option + " has an empty function name");
        return names;
    }

    @Override public String parameters() { return "LIB.so"; }

    @Override public String parametersDescription() { return "the native library (a shared object)"; }

    @Override public boolean parametersAreFiles() { return false; }

    @Override public int run(Args args, PrintStream out, PrintStream err) {
        boolean json = args.flag("--json");
        // --perf-map: the JIT programs and the probes' trampolines are named in /tmp/perf-PID.map.
        if (PerfMapFlag.given(args, err)) PerfMapFlag.enable();
        Path library = Path.of(args.single("LIB.so"));
        if (args.option("--attach").isEmpty() && args.option("--attach-return").isEmpty()) {
            throw new UsageException("missing --attach FUNC[,FUNC...] (or --attach-return FUNC[,FUNC...])");
        }
        List<String> attach = functionList(args, "--attach"), attachReturn = functionList(args, "--attach-return");
        long durationMillis = args.option("--duration").map(TraceCommand::parseDuration).orElse(0L);
        String entry = args.option("--call").orElse(null);
        if (entry == null && durationMillis == 0) throw new UsageException("missing --call ENTRY (or --duration S to trace this process's own calls)");
        long arg = args.option("--arg").map(TraceCommand::parseArg).orElse(0L);
        String engineChoice = args.option("--engine").orElse("interp");
        if (!ENGINE_CHOICES.contains(engineChoice)) {
            throw new UsageException("unknown engine '" + engineChoice + "' (expected one of interp, jit, all)");
        }
        if (engineChoice.equals("both")) err.println("bpf4j trace: --engine both is deprecated: use --engine all");
        if (args.option("--program").isPresent() && args.option("--object").isEmpty()) throw new UsageException("--program needs --object");
        List<Engine> engines = engines(engineChoice);
        boolean userObject = args.option("--object").isPresent();

        TraceTarget target;
        OpenObject open;
        String program;
        try {
            target = TraceTarget.resolve(library, entry, attach, attachReturn);
            if (userObject) {
                Path file = Path.of(args.option("--object").get());
                if (!Files.isRegularFile(file)) throw new IllegalArgumentException("no such object: " + file);
                open = BpfObject.open(file);
                program = args.option("--program").orElseGet(() -> ObjectRun.onlyProgram(open));
                ProgramType type = open.spec().program(program).type();
                if (type != ProgramType.KPROBE) {
                    throw new IllegalArgumentException("program '" + program + "' is " + type + ": trace attaches kprobe programs (ctx = struct pt_regs *)");
                }
            } else {
                open = StackCount.open();
                program = StackCount.PROGRAM;
            }
        } catch (IllegalArgumentException | BpfNotFoundException | BpfLoadException e) {
            return badInput(e, err);
        }

        if (durationMillis > 0) return runSession(open, program, engines, target, arg, durationMillis, userObject, json, out, err);
        List<TraceRun.Result> results = new ArrayList<>();
        int status = 0;
        for (Engine engine : engines) {
            TraceRun.Result r;
            try {
                r = TraceRun.run(open, program, engine, target, arg, userObject, line -> err.print(line.endsWith("\n") ? line : line + "\n"));
            } catch (IllegalArgumentException | IllegalStateException | BpfNotFoundException | BpfLoadException e) {
                // Not patchable, already probed, refused at load: bad input, reported before anything ran.
                return badInput(e, err);
            }
            results.add(r);
            if (!json) {
                out.println("== " + engine.name());
                r.stacks().ifPresent(s -> s.lines().forEach(out::println));
                r.maps().forEach(out::println);
            }
            err.println(engine.name() + ": " + entry + "(" + arg + ") = " + r.returned() + "; " + String.join("; ", r.hits()));
            for (String e : r.errors()) {
                err.println(engine.name() + ": program errors on " + e);
                status = 1;
            }
        }
        List<String> diffs = results.size() > 1 ? differences(results.get(0), results.get(1)) : List.of();
        if (json) {
            out.println(Json.print(json(entry, arg, results, diffs)));
            return diffs.isEmpty() ? status : 1;
        }
        if (results.size() > 1) {
            if (diffs.isEmpty()) {
                out.println("== engines agree: " + (results.get(0).stacks().isPresent() ? "same stack ids, frames and counts" : "same maps")
                        + ", same return value and hits");
            } else {
                out.println("== engines differ:");
                diffs.forEach(out::println);
                status = 1;
            }
        }
        return status;
    }

    /**
     * {@code --duration S}: every engine attached at once, the entry (if any) called on its own
     * thread, until S seconds are up, the entry returns or Ctrl-C; then detached and printed as above.
     * Engines are compared only when the entry returned before the end: a workload still running
     * while the probes come and go (one engine after the other) may hit one engine's program more.
     */
    private static int runSession(OpenObject open, String program, List<Engine> engines, TraceTarget target, long arg, long durationMillis,
                                  boolean userObject, boolean json, PrintStream out, PrintStream err) {
        TraceSession session = new TraceSession();
        CountDownLatch printed = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            session.stop("interrupt");
            try {
                printed.await(10, TimeUnit.SECONDS);      // let the main thread detach and print before the JVM halts
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "bpf4j-trace-interrupt");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            TraceSession.Outcome o;
            try {
                o = session.run(open, program, engines, target, arg, durationMillis, userObject, line -> err.print(line.endsWith("\n") ? line : line + "\n"));
            } catch (IllegalArgumentException | IllegalStateException | BpfNotFoundException | BpfLoadException e) {
                return badInput(e, err);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CliException("interrupted");
            }
            int status = 0;
            String call = target.entry() == null ? "no entry called"
                    : target.entry() + "(" + arg + ") " + (o.returned().isPresent() ? "= " + o.returned().getAsLong() : "still running");
            for (TraceRun.Result r : o.results()) {
                if (!json) {
                    out.println("== " + r.engine());
                    r.stacks().ifPresent(s -> s.lines().forEach(out::println));
                    r.maps().forEach(out::println);
                }
                err.println(r.engine() + ": " + o.millis() + " ms, ended by " + o.stoppedBy() + "; " + call + "; " + String.join("; ", r.hits()));
                for (String e : r.errors()) {
                    err.println(r.engine() + ": program errors on " + e);
                    status = 1;
                }
            }
            boolean compared = o.results().size() > 1 && o.returned().isPresent();
            List<String> diffs = compared ? differences(o.results().get(0), o.results().get(1)) : List.of();
            if (json) {
                out.println(Json.print(json(target.entry(), arg, o.results(), diffs)));
                return diffs.isEmpty() ? status : 1;
            }
            if (o.results().size() > 1) {
                if (!compared) {
                    out.println("== engines not compared: the workload ran on while the engines' probes were attached and detached one after the other");
                } else {
                    if (diffs.isEmpty()) {
                        out.println("== engines agree: " + (o.results().get(0).stacks().isPresent() ? "same stack ids, frames and counts" : "same maps")
                                + ", same return value and hits");
                    } else {
                        out.println("== engines differ:");
                        diffs.forEach(out::println);
                        status = 1;
                    }
                }
            }
            return status;
        } finally {
            printed.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // Ctrl-C: the hook is running and waits for us
            }
        }
    }

    private static long parseDuration(String v) {
        try {
            double s = Double.parseDouble(v);
            if (!(s > 0) || s > 86_400 * 365) throw new NumberFormatException();
            return Math.max(1, (long) (s * 1000));
        } catch (NumberFormatException e) {
            throw new UsageException("--duration needs a positive number of seconds, not '" + v + "'");
        }
    }

    /** Each engine's return value, hits, errors, folded stacks (frames root first, folded, count) and maps; the differences. */
    private static JsonObject json(String entry, long arg, List<TraceRun.Result> results, List<String> diffs) {
        JsonObject doc = Json.object("call", entry);
        doc.addProperty("arg", arg);
        JsonArray runs = new JsonArray();
        for (TraceRun.Result r : results) {
            JsonObject o = Json.object("engine", r.engine());
            o.addProperty("returned", r.returned());
            JsonArray hits = new JsonArray();
            r.hits().forEach(hits::add);
            o.add("hits", hits);
            JsonArray errors = new JsonArray();
            r.errors().forEach(errors::add);
            o.add("errors", errors);
            r.stacks().ifPresent(s -> {
                JsonArray stacks = new JsonArray();
                for (StackCounts.Stack st : s.stacks()) {
                    JsonObject x = new JsonObject();
                    x.addProperty("id", st.id());
                    JsonArray frames = new JsonArray();
                    List<String> rootFirst = new ArrayList<>(st.frames());
                    java.util.Collections.reverse(rootFirst);
                    rootFirst.forEach(frames::add);
                    x.add("frames", frames);
                    x.addProperty("folded", st.folded());
                    x.addProperty("count", st.count());
                    stacks.add(x);
                }
                o.add("stacks", stacks);
            });
            JsonArray maps = new JsonArray();
            r.maps().forEach(m -> maps.add(Json.parse(m)));
            o.add("maps", maps);
            runs.add(o);
        }
        doc.add("runs", runs);
        if (results.size() > 1) {
            JsonArray d = new JsonArray();
            diffs.forEach(d::add);
            doc.add("differences", d);
            doc.addProperty("agree", diffs.isEmpty());
        }
        return doc;
    }

    private static int badInput(Exception e, PrintStream err) {
        err.println("bpf4j trace: " + e.getMessage());
        return 2;
    }

    private static List<Engine> engines(String choice) {
        List<String> names = choice.equals("both") || choice.equals("all") ? List.of("interp", "jit") : List.of(choice);
        List<Engine> out = new ArrayList<>();
        for (String n : names) {
            try {
                out.add(Engines.byName(n));
            } catch (BpfNotFoundException e) {
                throw new CliException(e.getMessage());
            }
        }
        return out;
    }

    /** Lines of {@link TraceRun.Result#comparable()} that only one engine has. */
    static List<String> differences(TraceRun.Result a, TraceRun.Result b) {
        List<String> out = new ArrayList<>();
        List<String> x = a.comparable(), y = b.comparable();
        for (String s : x) if (!y.contains(s)) out.add(a.engine() + " only: " + s);
        for (String s : y) if (!x.contains(s)) out.add(b.engine() + " only: " + s);
        return out;
    }

    private static long parseArg(String v) {
        try {
            return Long.decode(v);
        } catch (NumberFormatException e) {
            throw new UsageException("--arg needs an integer, not '" + v + "'");
        }
    }
}
