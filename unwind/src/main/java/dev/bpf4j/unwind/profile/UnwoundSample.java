package dev.bpf4j.unwind.profile;

import dev.bpf4j.unwind.Frame;
import dev.bpf4j.unwind.StackTrace;
import dev.bpf4j.unwind.sampling.PerfRecord;

import java.util.List;

/** A sample with its unwound trace and the trace's frames, innermost first. */
public record UnwoundSample(PerfRecord.Sample sample, StackTrace trace, List<Frame> frames) {
    /** Frame names root first, as a folded stack lists them. */
    public List<String> foldedFrames() {
        String[] out = new String[frames.size()];
        for (int i = 0; i < frames.size(); i++) out[frames.size() - 1 - i] = FrameNames.of(frames.get(i));
        return List.of(out);
    }
}
