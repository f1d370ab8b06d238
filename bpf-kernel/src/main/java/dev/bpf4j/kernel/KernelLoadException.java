package dev.bpf4j.kernel;

import dev.bpf4j.runtime.BpfLoadException;

/**
 * The kernel engine cannot run a program: the kernel refused it ({@link KernelRejectedException})
 * or the program asks for something the kernel would do differently (a registry helper whose id
 * means another helper in the kernel). A differential test treats both as "no kernel verdict".
 */
public class KernelLoadException extends BpfLoadException {
    public KernelLoadException(String message) { super(message); }
    public KernelLoadException(String message, Throwable cause) { super(message, cause); }
}
