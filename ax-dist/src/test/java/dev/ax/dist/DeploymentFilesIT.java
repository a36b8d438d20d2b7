package dev.ax.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import dev.ax.cli.Main;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * What can be checked of the deployment files on a machine with no cluster and no image registry: the Kubernetes
 * manifests and the compose file parse, hang together (probes on /healthz, every Secret key they read is defined,
 * the Service selects the server pods and the executors talk to it) and set only environment variables AX reads;
 * the Containerfile's inputs are what the build makes. Building and running the image is not done here (see
 * docs/deploy.md).
 */
class DeploymentFilesIT {
    static final Path DEPLOY = Path.of(System.getProperty("ax.checkout"), "deploy");
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    /** Read by AX beside the options (AX_ and the option's name). */
    static final Set<String> OTHER_VARIABLES =
            Set.of("AX_SECRET_KEY", "AX_SECRET_KEY_PREVIOUS", "AX_ADMIN_TOKEN", "AX_JAVA_OPTS", "AX_CDS", "AX_CONFIG");

    @Test
    void the_kubernetes_manifests_hang_together() throws IOException {
        List<JsonNode> docs = new ArrayList<>();
        try (var files = Files.list(DEPLOY.resolve("kubernetes"))) {
            for (Path f :
                    files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()) {
                docs.addAll(yamlDocuments(f));
            }
        }
        assertThat(docs).allSatisfy(d -> {
            assertThat(d.path("apiVersion").asText()).isNotEmpty();
            assertThat(d.path("kind").asText()).isNotEmpty();
            assertThat(d.path("metadata").path("name").asText()).isNotEmpty();
        });
        Map<String, Set<String>> secrets = new HashMap<>();
        docs.stream().filter(d -> d.path("kind").asText().equals("Secret")).forEach(d -> {
            Set<String> keys = new HashSet<>();
            d.path("stringData").fieldNames().forEachRemaining(keys::add);
            d.path("data").fieldNames().forEachRemaining(keys::add);
            secrets.put(d.path("metadata").path("name").asText(), keys);
        });
        JsonNode server = one(docs, "Deployment", "ax-server");
        JsonNode executor = one(docs, "Deployment", "ax-executor");
        JsonNode service = one(docs, "Service", "ax");

        JsonNode serverPod = server.path("spec").path("template");
        JsonNode ax = serverPod.path("spec").path("containers").get(0);
        for (String probe : List.of("readinessProbe", "livenessProbe")) {
            assertThat(ax.path(probe).path("httpGet").path("path").asText())
                    .as(probe)
                    .isEqualTo("/healthz");
            assertThat(ax.path(probe).path("httpGet").path("port").asText()).isEqualTo("http");
        }
        assertThat(ax.path("ports").get(0).path("name").asText()).isEqualTo("http");
        assertThat(ax.path("ports").get(0).path("containerPort").asInt()).isEqualTo(7070);
        assertThat(server.path("spec").path("selector").path("matchLabels"))
                .isEqualTo(serverPod.path("metadata").path("labels"));
        assertThat(service.path("spec").path("selector"))
                .isEqualTo(serverPod.path("metadata").path("labels"));
        assertThat(service.path("spec").path("ports").get(0).path("port").asInt())
                .isEqualTo(7070);
        // Longer than the default drain timeout (PT30S): SIGTERM lets runs end before the pod is killed.
        for (JsonNode d : List.of(server, executor)) {
            assertThat(d.path("spec")
                            .path("template")
                            .path("spec")
                            .path("terminationGracePeriodSeconds")
                            .asInt())
                    .isGreaterThan(30);
        }

        Map<String, JsonNode> serverEnv = env(ax);
        Map<String, JsonNode> executorEnv = env(executor.path("spec")
                .path("template")
                .path("spec")
                .path("containers")
                .get(0));
        assertThat(serverEnv).containsKeys("AX_DB_URL", "AX_DB_PASSWORD", "AX_SECRET_KEY");
        assertThat(executorEnv.get("AX_SERVER").path("value").asText())
                .isEqualTo("http://" + service.path("metadata").path("name").asText() + ":7070");
        for (Map<String, JsonNode> env : List.of(serverEnv, executorEnv)) {
            env.values().stream()
                    .map(v -> v.path("valueFrom").path("secretKeyRef"))
                    .filter(ref -> !ref.isMissingNode())
                    .forEach(ref -> assertThat(secrets.get(ref.path("name").asText()))
                            .as("Secret %s", ref.path("name").asText())
                            .contains(ref.path("key").asText()));
        }
        assertThat(serverEnv.keySet())
                .allSatisfy(name -> assertThat(readBy("server", name)).as(name).isTrue());
        assertThat(executorEnv.keySet())
                .allSatisfy(
                        name -> assertThat(readBy("executor", name)).as(name).isTrue());
    }

    @Test
    void the_compose_file_parses_and_sets_only_what_ax_reads() throws IOException {
        JsonNode compose = YAML.readTree(DEPLOY.resolve("compose.yaml").toFile());
        JsonNode services = compose.path("services");
        assertThat(services.fieldNames()).toIterable().contains("postgres", "ax-1", "ax-2", "executor");
        for (String node : List.of("ax-1", "ax-2")) {
            Set<String> names = new HashSet<>();
            services.path(node).path("environment").fieldNames().forEachRemaining(names::add);
            assertThat(names).contains("AX_DB_URL", "AX_SECRET_KEY", "AX_NODE_ID");
            assertThat(names)
                    .allSatisfy(
                            name -> assertThat(readBy("server", name)).as(name).isTrue());
        }
        Set<String> executorEnv = new HashSet<>();
        services.path("executor").path("environment").fieldNames().forEachRemaining(executorEnv::add);
        assertThat(executorEnv)
                .allSatisfy(
                        name -> assertThat(readBy("executor", name)).as(name).isTrue());
        assertThat(services.path("executor")
                        .path("environment")
                        .path("AX_SERVER")
                        .asText())
                .isEqualTo("http://ax-1:7070,http://ax-2:7070");
    }

    @Test
    void the_containerfile_takes_the_archive_the_build_makes() throws IOException {
        String containerfile = Files.readString(DEPLOY.resolve("Containerfile"));
        Matcher add = Pattern.compile("(?m)^ADD (\\S+) ").matcher(containerfile);
        assertThat(add.find()).isTrue();
        Path archive = Path.of(
                System.getProperty("ax.checkout"),
                add.group(1).replace("${AX_VERSION}", System.getProperty("ax.version")));
        assertThat(archive).isRegularFile();
        assertThat(containerfile).contains("ENTRYPOINT [\"/opt/ax/bin/ax\"]").contains("EXPOSE 7070");
    }

    /** Whether {@code ax <command>} reads the environment variable {@code name}. */
    static boolean readBy(String command, String name) {
        if (OTHER_VARIABLES.contains(name)) {
            return true;
        }
        CommandLine cmd =
                Main.commandLine(Map.of(), new String[0]).getSubcommands().get(command);
        for (OptionSpec o : cmd.getCommandSpec().options()) {
            String option = o.longestName();
            if (option.startsWith("--")
                    && name.equals("AX_" + option.substring(2).toUpperCase().replace('-', '_'))) {
                return true;
            }
        }
        return false;
    }

    static Map<String, JsonNode> env(JsonNode container) {
        Map<String, JsonNode> env = new HashMap<>();
        container.path("env").forEach(e -> env.put(e.path("name").asText(), e));
        return env;
    }

    static JsonNode one(List<JsonNode> docs, String kind, String name) {
        return docs.stream()
                .filter(d -> d.path("kind").asText().equals(kind)
                        && d.path("metadata").path("name").asText().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " " + name));
    }

    static List<JsonNode> yamlDocuments(Path file) throws IOException {
        List<JsonNode> docs = new ArrayList<>();
        try (YAMLParser parser = new YAMLFactory().createParser(file.toFile())) {
            var it = YAML.readValues(parser, ObjectNode.class);
            while (it.hasNext()) {
                docs.add(it.next());
            }
        }
        return docs;
    }
}
