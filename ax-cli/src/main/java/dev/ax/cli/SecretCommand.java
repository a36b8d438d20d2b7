package dev.ax.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.Console;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code ax secret set|list|rm|rotate-key}: values a task uses as {@code {{secret.NAME}}}, stored encrypted, never shown. */
@Command(
        name = "secret",
        mixinStandardHelpOptions = true,
        description = {
            "Secrets a task uses as {{secret.NAME}} in env values, headers, URLs and bodies:",
            "stored encrypted, handed to a run only when it starts, shown nowhere (output shows *** instead)."
        },
        subcommands = {
            SecretCommand.Set.class,
            SecretCommand.ListSecrets.class,
            SecretCommand.Remove.class,
            SecretCommand.RotateKey.class
        })
final class SecretCommand extends GroupCommand {
    /** The most a value may be (the server refuses more); reading stops one byte past it. */
    static final int MAX_VALUE_BYTES = 64 * 1024;

    static String path(String name) {
        return "/api/secrets/" + ApiClient.segment(name);
    }

    @Command(
            name = "set",
            mixinStandardHelpOptions = true,
            description = {
                "Set a secret's value, read from standard input, never from the command line (it would show in ps",
                "and the shell's history). From a terminal it is read without echo; otherwise all of standard input is the",
                "value, without its final newline:  ax secret set db_password < pw.txt   or   vault read … | ax secret set db_password"
            })
    static final class Set extends ClientCommand {
        @Parameters(paramLabel = "NAME", description = "The secret's name: letters, digits, '_', '.' and '-'.")
        String name;

        @Override
        protected int run(ApiClient api) {
            String value = readValue(name);
            ApiClient.Answer answer = api.putForStatus(path(name), Map.of("value", value));
            if (!printedJson(answer.body())) {
                out().println((answer.status() == 201 ? "created" : "updated") + " secret "
                        + Output.text(answer.body(), "name") + " (key " + Output.text(answer.body(), "keyId")
                        + "); use it as {{secret." + name + "}}");
            }
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description = "Secrets by name: who set them when, and their key; never values.")
    static final class ListSecrets extends ClientCommand {
        @Override
        protected int run(ApiClient api) {
            JsonNode page = api.get("/api/secrets");
            if (printedJson(page)) {
                return ExitCodes.OK;
            }
            List<List<String>> rows = new ArrayList<>();
            for (JsonNode s : items(page)) {
                rows.add(List.of(
                        Output.text(s, "name"),
                        Output.instant(s, "updatedAt"),
                        Output.text(s, "updatedBy"),
                        Output.instant(s, "createdAt"),
                        Output.text(s, "createdBy"),
                        Output.text(s, "keyId")));
            }
            Output.table(out(), List.of("NAME", "UPDATED", "BY", "CREATED", "BY", "KEY"), rows);
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "rm",
            aliases = "delete",
            mixinStandardHelpOptions = true,
            description = "Delete a secret; refused while a task uses it (the answer names the tasks).")
    static final class Remove extends ClientCommand {
        @Parameters(paramLabel = "NAME", description = "The secret's name.")
        String name;

        @Override
        protected int run(ApiClient api) {
            api.delete(path(name));
            out().println("deleted secret " + name);
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "rotate-key",
            mixinStandardHelpOptions = true,
            description = {
                "Seal every secret with a new key. With the key file of the server's data directory the server does it;",
                "with AX_SECRET_KEY it answers what to do instead (a new AX_SECRET_KEY, the old one in AX_SECRET_KEY_PREVIOUS,",
                "restart each node)."
            })
    static final class RotateKey extends ClientCommand {
        @Override
        protected int run(ApiClient api) {
            JsonNode r = api.post("/api/secrets/rotate-key", Map.of());
            if (!printedJson(r)) {
                out().println("secret key rotated: " + Output.text(r, "secrets") + " secrets sealed with key "
                        + Output.text(r, "keyId") + " (was " + Output.text(r, "previousKeyId") + ")");
            }
            return ExitCodes.OK;
        }
    }

    /** The value, without echo from a terminal, else all of standard input without its final newline. */
    static String readValue(String name) {
        Console console = System.console();
        if (console != null && isTerminal(console)) {
            char[] typed = console.readPassword("value of secret %s (not shown): ", name);
            if (typed == null) {
                throw new CliException(ExitCodes.USAGE, "no value: standard input ended");
            }
            String value = new String(typed);
            Arrays.fill(typed, '\0');
            return value;
        }
        if (stdinIsTerminal()) {
            // A terminal whose echo this JVM cannot turn off (its output is redirected): typing would show the value.
            throw new CliException(
                    ExitCodes.USAGE,
                    "standard input is a terminal that would show the value as it is typed;"
                            + " pipe it in instead: ax secret set " + name + " < file");
        }
        return withoutFinalNewline(readAtMost(System.in));
    }

    private static String readAtMost(InputStream in) {
        try {
            byte[] bytes = in.readNBytes(MAX_VALUE_BYTES + 3);
            if (bytes.length > MAX_VALUE_BYTES + 2) {
                throw new CliException(
                        ExitCodes.USAGE, "the value on standard input is over 64 KiB, the most a secret holds");
            }
            return new String(bytes, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new CliException(ExitCodes.USAGE, "cannot read standard input: " + e.getMessage());
        }
    }

    static String withoutFinalNewline(String s) {
        if (s.endsWith("\r\n")) {
            return s.substring(0, s.length() - 2);
        }
        return s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
    }

    /** {@code Console.isTerminal()} where the JDK has it (22+); on 21 a console exists only for a terminal. */
    private static boolean isTerminal(Console console) {
        try {
            return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
        } catch (NoSuchMethodException e) {
            return true;
        } catch (ReflectiveOperationException e) {
            return false;
        }
    }

    /** Whether standard input is a terminal, where the system says (Linux); false where it cannot tell. */
    private static boolean stdinIsTerminal() {
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/0")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty") || target.equals("/dev/console");
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }
}
