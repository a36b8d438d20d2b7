package dev.ax.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;

/**
 * Where {@code ax server} and {@code ax executor} take an option from, first that has it: the
 * command line; the environment ({@code --db-url} from {@code AX_DB_URL}); the file of
 * {@code --config FILE} (or {@code AX_CONFIG}), a properties file keyed by the option's name
 * ({@code db-url = jdbc:postgresql://…}); the option's own default. Picocli asks this provider
 * for every option not given on the command line and falls back to the default when it answers
 * null.
 *
 * <p>The file is named on the same command line picocli is parsing, and picocli asks for defaults
 * before it parses, so the file is found by a look at the arguments first ({@link #configArgument}).
 */
final class ConfigSources implements IDefaultValueProvider {
    /** Options that say how to read the configuration, not what it is. */
    private static final Set<String> NOT_CONFIGURABLE = Set.of("config", "print-config", "help", "version");

    private static final Pattern SECRET_NAME = Pattern.compile("password|token|secret");
    private static final Pattern PASSWORD_IN_URL = Pattern.compile("(?i)(password=)[^&;]*");

    enum Source {
        FLAG("command line"),
        ENV("environment"),
        FILE("config file"),
        DEFAULT("default");

        final String words;

        Source(String words) {
            this.words = words;
        }
    }

    private final Map<String, String> env;
    private final Path file;
    private final Properties values = new Properties();
    private final String fileProblem;

    ConfigSources(Map<String, String> env, Path file) {
        this.env = env;
        this.file = file;
        this.fileProblem = file == null ? null : load(file, values);
    }

    /** The sources for a command line: {@code --config FILE} among {@code args}, else {@code AX_CONFIG}. */
    static ConfigSources of(Map<String, String> env, String[] args) {
        String named = configArgument(args);
        if (named == null) {
            named = env.get("AX_CONFIG");
        }
        return new ConfigSources(env, named == null || named.isBlank() ? null : Path.of(named));
    }

    /** The value of {@code --config FILE} or {@code --config=FILE} in {@code args}, or null. */
    static String configArgument(String[] args) {
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--")) {
                return null;
            }
            if (args[i].equals("--config") && i + 1 < args.length) {
                return args[i + 1];
            }
            if (args[i].startsWith("--config=")) {
                return args[i].substring("--config=".length());
            }
        }
        return null;
    }

    private static String load(Path file, Properties into) {
        if (!Files.isRegularFile(file)) {
            return "--config " + file + ": no such file";
        }
        try (Reader in = Files.newBufferedReader(file)) {
            into.load(in);
            return null;
        } catch (IOException | IllegalArgumentException e) {
            return "--config " + file + ": cannot be read: " + e.getMessage();
        }
    }

    @Override
    public String defaultValue(ArgSpec arg) {
        String name = nameOf(arg);
        if (name == null) {
            return null;
        }
        String fromEnv = env.get(envName(name));
        if (fromEnv != null) {
            return fromEnv;
        }
        return values.getProperty(name);
    }

    /** {@code AX_DB_URL} for {@code db-url}. */
    static String envName(String name) {
        return "AX_" + name.toUpperCase(Locale.ROOT).replace('-', '_');
    }

    private static String nameOf(ArgSpec arg) {
        if (!(arg instanceof OptionSpec o) || !o.longestName().startsWith("--")) {
            return null;
        }
        String name = o.longestName().substring(2);
        return NOT_CONFIGURABLE.contains(name) ? null : name;
    }

    Source sourceOf(CommandSpec spec, OptionSpec o) {
        if (spec.commandLine().getParseResult() != null
                && spec.commandLine().getParseResult().hasMatchedOption(o)) {
            return Source.FLAG;
        }
        String name = nameOf(o);
        if (name == null) {
            return Source.DEFAULT;
        }
        if (env.containsKey(envName(name))) {
            return Source.ENV;
        }
        return values.containsKey(name) ? Source.FILE : Source.DEFAULT;
    }

    /**
     * Refuses what cannot be right before anything starts: a {@code --config} file that is
     * missing or unreadable, or one that names an option the command does not have (a typo would
     * otherwise be a setting silently not taken).
     */
    void check(CommandSpec spec) {
        if (fileProblem != null) {
            throw new ParameterException(spec.commandLine(), fileProblem);
        }
        Set<String> known = new TreeSet<>();
        spec.options().forEach(o -> {
            String name = nameOf(o);
            if (name != null) {
                known.add(name);
            }
        });
        List<String> unknown = new ArrayList<>();
        for (String key : values.stringPropertyNames()) {
            if (!known.contains(key)) {
                unknown.add(key);
            }
        }
        if (!unknown.isEmpty()) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--config " + file + ": no option " + String.join(", ", new TreeSet<>(unknown)) + " in ax "
                            + spec.name() + " (the keys are the options' names without '--': "
                            + String.join(", ", known)
                            + ")");
        }
    }

    /** Every option of {@code spec} as it is, where it came from, secrets masked: {@code --print-config}. */
    void print(CommandSpec spec, PrintWriter out) {
        out.printf(
                "# ax %s: each option, its value and where it came from (command line > environment > %s > default)%n",
                spec.name(), file == null ? "config file (none)" : file);
        for (OptionSpec o : spec.options()) {
            String name = nameOf(o);
            if (name == null) {
                continue;
            }
            Object value = o.getValue();
            // A Locale prints as zh_CN; the option is written (and read back) as zh-CN.
            String text = value instanceof Locale l ? l.toLanguageTag() : String.valueOf(value);
            String shown = value == null ? "" : masked(name, text);
            if (value instanceof List<?> list) {
                shown = String.join(",", list.stream().map(String::valueOf).toList());
            }
            out.printf(
                    "%s = %s    # %s%s%n",
                    name, shown, sourceOf(spec, o).words, sourceOf(spec, o) == Source.ENV ? " " + envName(name) : "");
        }
        out.flush();
    }

    /** A secret's value never shown: a password or token entirely, a password in a database URL. */
    static String masked(String name, String value) {
        if (value.isEmpty()) {
            return value;
        }
        if (SECRET_NAME.matcher(name).find()) {
            return "****";
        }
        return PASSWORD_IN_URL.matcher(value).replaceAll("$1****");
    }

    /** Adds where a value came from to picocli's "Invalid value for option" when it was not the command line. */
    String whereFrom(CommandSpec spec, ArgSpec arg) {
        if (!(arg instanceof OptionSpec o)) {
            return "";
        }
        Source s = sourceOf(spec, o);
        String name = nameOf(o);
        return switch (s) {
            case ENV -> " (from " + envName(name) + ")";
            case FILE -> " (from " + name + " in " + file + ")";
            default -> "";
        };
    }
}
