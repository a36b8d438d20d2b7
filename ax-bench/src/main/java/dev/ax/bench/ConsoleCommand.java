package dev.ax.bench;

import picocli.CommandLine.Command;

@Command(name = "console", description = "Console pages with 10,000 tasks and 1,000,000 runs stored (not measurable yet)")
final class ConsoleCommand implements Runnable {
    static final String NOT_YET = "n/a: console pages are not a workload of the harness yet";

    @Override
    public void run() {
        System.out.println(NOT_YET);
    }

    static Bar bar() {
        return new Bar("console pages", "<= 200 ms server time", NOT_YET, "-", "-", "-", "-", "n/a");
    }
}
