package dev.bpf4j.runtime;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a class whose methods stand between user code and {@link Executable#run} (a program
 * wrapper, a probe dispatcher). A Java caller stack (a run without registers) drops such frames
 * just outside the run, as it drops every {@link Executable}'s own frames, so the innermost frame
 * of the trace is the user code that asked for the run.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface RunEntry {}
