package dev.bpf4j.unwind.cfi;

/**
 * A Common Information Entry: what every FDE pointing at it shares. {@code instructionsStart/End}
 * are offsets in {@code .eh_frame} of the initial CFA instructions; {@code signalFrame} is the
 * {@code S} augmentation (a signal trampoline: its pc is not a return address).
 */
public record Cie(long offset, int version, String augmentation, long codeAlign, long dataAlign, int returnRegister,
                  int fdeEncoding, int lsdaEncoding, boolean hasAugmentationData, boolean signalFrame,
                  long instructionsStart, long instructionsEnd) {}
