package dev.bpf4j.runtime;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a runtime class whose frames never show in a Java caller stack (a run without registers):
 * a program wrapper or probe dispatcher standing between user code and {@link Executable#run}, an
 * engine's loop or helper bridge. Such frames are dropped wherever they are outside the innermost
 * run — as are the frames of every {@link Executable} and {@link HelperCall} class — so the
 * innermost frame of the trace is the user code that asked for the run, and a run nested in a
 * helper shows the same frames under every engine.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface RunEntry {}
