package dev.ax.executor.reaper;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * The reaper process: started by each executor beside itself ({@link Reaper#start}), in a session of its own, it
 * kills the process trees of the executor's runs when the executor can no longer be trusted to do it — when it
 * dies by any signal (its end of the reaper's standard input closes: nothing else holds it) and when it has not
 * renewed a run's lease in time (a stopped or starved JVM still holds its end open, but says nothing). The executor
 * itself cannot do either: a killed or stopped JVM runs no code.
 *
 * <p>Arguments: the executor's id and this life's session. On start it also kills what an earlier life of the same
 * executor left running (a life whose reaper died with it). It loads no logging and no library: a few megabytes.
 */
public final class ReaperMain {
    private ReaperMain() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: ReaperMain EXECUTOR_ID SESSION");
            System.exit(2);
        }
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        new ReaperLoop(args[0], args[1], out, System::nanoTime).run(in);
        System.exit(0);
    }
}
