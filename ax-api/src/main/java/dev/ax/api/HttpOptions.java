package dev.ax.api;

import java.util.List;

/**
 * How a node's HTTP server meets the outside world. Immutable; invalid values fail here, naming the
 * server option that sets them.
 *
 * @param maxRequestBytes the largest request body taken; a larger one is answered 413 before any handler
 *                        runs. Bodies are held in memory whole, and nothing AX takes (a task, a trigger, an
 *                        executor's report) comes near the default
 * @param tls             the certificate and key to serve HTTPS with; null = plain HTTP
 * @param trustedProxies  addresses of reverse proxies whose {@code X-Forwarded-For} names the client (see
 *                        {@link ClientAddress}); empty = the connection's peer is the client
 */
public record HttpOptions(long maxRequestBytes, TlsIdentity tls, List<String> trustedProxies) {
    public static final long DEFAULT_MAX_REQUEST_BYTES = 1024L * 1024;
    /**
     * Executors never send a request larger than this ({@code HttpExecutorChannel.MAX_REQUEST_BYTES}), so any
     * limit at or above it still takes every log chunk and completion, whatever a run prints.
     */
    public static final long MIN_MAX_REQUEST_BYTES = 256L * 1024;

    public static final long MAX_MAX_REQUEST_BYTES = 64L * 1024 * 1024;
    public static final HttpOptions DEFAULT = new HttpOptions(DEFAULT_MAX_REQUEST_BYTES, null, List.of());

    public HttpOptions {
        if (maxRequestBytes < MIN_MAX_REQUEST_BYTES || maxRequestBytes > MAX_MAX_REQUEST_BYTES) {
            throw new IllegalArgumentException("--max-request-size must be between " + MIN_MAX_REQUEST_BYTES
                    + " (256 KiB) and " + MAX_MAX_REQUEST_BYTES + " (64 MiB) bytes, was " + maxRequestBytes);
        }
        trustedProxies = trustedProxies == null ? List.of() : List.copyOf(trustedProxies);
        for (String proxy : trustedProxies) {
            if (ClientAddress.literal(proxy).isEmpty()) {
                throw new IllegalArgumentException(
                        "--trusted-proxy must be an IP address like 10.0.0.5 or fd00::5, was '" + proxy + "'");
            }
        }
    }

    public HttpOptions withMaxRequestBytes(long bytes) {
        return new HttpOptions(bytes, tls, trustedProxies);
    }

    public HttpOptions withTls(TlsIdentity identity) {
        return new HttpOptions(maxRequestBytes, identity, trustedProxies);
    }

    public HttpOptions withTrustedProxies(List<String> proxies) {
        return new HttpOptions(maxRequestBytes, tls, proxies);
    }

    public String scheme() {
        return tls == null ? "http" : "https";
    }
}
