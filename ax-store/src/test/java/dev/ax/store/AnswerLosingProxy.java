package dev.ax.store;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy in front of an HTTP server that loses the answers to the first requests: it passes such a request on
 * whole, waits until the server starts to answer (so the server has done the work), then resets the caller's
 * connection without passing the answer back. The caller sees a dropped connection and cannot tell whether its
 * request was done: the case a retry with an idempotency key exists for. Later requests are passed both ways.
 *
 * <p>One request per connection (it asks the server to close after answering), so every request's head is seen and
 * kept ({@link #requestHeads()}). Shared with other modules' tests through this module's test-jar, like
 * {@link TestDatabases}.
 */
public final class AnswerLosingProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final int targetPort;
    private final AtomicInteger toLose;
    private final List<String> heads = new CopyOnWriteArrayList<>();
    private final ExecutorService connections = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "answer-losing-proxy");
        t.setDaemon(true);
        return t;
    });

    /** Listens on a free loopback port; forwards to {@code targetPort} there, losing the first {@code answersToLose} answers. */
    public AnswerLosingProxy(int targetPort, int answersToLose) {
        this.targetPort = targetPort;
        this.toLose = new AtomicInteger(answersToLose);
        try {
            listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        connections.execute(this::accept);
    }

    public URI uri() {
        return URI.create("http://127.0.0.1:" + listener.getLocalPort());
    }

    /** The head (request line and headers) of every request received, in order. */
    public List<String> requestHeads() {
        return List.copyOf(heads);
    }

    /** The values of header {@code name} in each request received, in order (null where absent). */
    public List<String> headerOfEachRequest(String name) {
        List<String> values = new ArrayList<>();
        for (String head : heads) {
            String value = null;
            for (String line : head.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).strip().equalsIgnoreCase(name)) {
                    value = line.substring(colon + 1).strip();
                }
            }
            values.add(value);
        }
        return values;
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                connections.execute(() -> serve(client));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket client) {
        try (client;
                Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort)) {
            InputStream in = client.getInputStream();
            String head = readHead(in);
            if (head == null) {
                return;
            }
            heads.add(head);
            byte[] body = in.readNBytes(contentLength(head));
            OutputStream toServer = server.getOutputStream();
            toServer.write(closingAfterAnswer(head).getBytes(StandardCharsets.ISO_8859_1));
            toServer.write(body);
            toServer.flush();
            InputStream fromServer = server.getInputStream();
            if (toLose.getAndDecrement() > 0) {
                fromServer.read(); // the server has answered: the work is done
                client.setSoLinger(true, 0); // a reset, not an orderly end: the answer is lost
                return;
            }
            fromServer.transferTo(client.getOutputStream());
        } catch (IOException e) {
            // the caller went away: nothing to pass on
        }
    }

    /** The request head up to and without its blank line, or null at end of stream. */
    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        while (matched < end.length) {
            int b = in.read();
            if (b < 0) {
                return null;
            }
            head.write(b);
            matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        String text = head.toString(StandardCharsets.ISO_8859_1);
        return text.substring(0, text.length() - end.length);
    }

    private static int contentLength(String head) {
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                return Integer.parseInt(
                        line.substring("content-length:".length()).strip());
            }
        }
        return 0;
    }

    /** The head with {@code Connection: close}, so the server ends the connection after its answer. */
    private static String closingAfterAnswer(String head) {
        StringBuilder out = new StringBuilder();
        for (String line : head.split("\r\n")) {
            if (!line.toLowerCase(Locale.ROOT).startsWith("connection:")) {
                out.append(line).append("\r\n");
            }
        }
        return out.append("Connection: close\r\n\r\n").toString();
    }

    @Override
    public void close() {
        try {
            listener.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        connections.shutdownNow();
    }
}
