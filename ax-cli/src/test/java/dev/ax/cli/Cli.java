package dev.ax.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import picocli.CommandLine;

/** Runs the ax command in this JVM, the way {@code main} does, capturing what it prints. */
final class Cli {
    private Cli() {}

    record Result(int exitCode, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    static Result run(String... args) {
        return runWith(System.getenv(), args);
    }

    /** As {@link #run}, with {@code env} as the environment the command reads. */
    static Result runWith(Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cmd = Main.commandLine(env, args);
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        int code = cmd.execute(args);
        return new Result(code, out.toString(), err.toString());
    }
}
