package dev.ax.api;

import io.javalin.http.Context;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The address a request came from, for per-client limits such as the console's login throttle
 * ({@code ctx.ip()} answers with it).
 *
 * <p>By default it is the connection's peer. {@code X-Forwarded-For} is whatever the sender wrote:
 * trusting it would let an attacker claim a new address for every attempt. Behind a reverse proxy every
 * client therefore shares the proxy's address, unless that proxy is named as trusted: then the client is
 * the rightmost {@code X-Forwarded-For} entry that is not itself a trusted proxy. Each proxy appends the
 * address it saw, so only the entries its trusted proxies wrote are believed; what stands left of them may
 * be forged.
 */
public final class ClientAddress {
    private static final Pattern IPV4 =
            Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})(?::\\d{1,5})?");
    private static final Pattern IPV6 =
            Pattern.compile("\\[?([0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*)](?::\\d{1,5})?|([0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*)");

    private final Set<InetAddress> trusted = new HashSet<>();

    ClientAddress(Collection<String> trustedProxies) {
        for (String proxy : trustedProxies) {
            trusted.add(literal(proxy).orElseThrow(() -> new IllegalArgumentException("not an IP address: " + proxy)));
        }
    }

    /** The client's address as text ({@code 203.0.113.7}, {@code 2001:db8:0:0:0:0:0:1}). */
    String of(Context ctx) {
        String peer = ctx.req().getRemoteAddr();
        if (trusted.isEmpty()) {
            return peer;
        }
        Optional<InetAddress> hop = literal(peer);
        if (hop.isEmpty() || !trusted.contains(hop.get())) {
            return peer;
        }
        InetAddress last = hop.get();
        List<String> chain = forwardedFor(ctx);
        for (int i = chain.size() - 1; i >= 0; i--) {
            Optional<InetAddress> entry = literal(chain.get(i));
            if (entry.isEmpty()) {
                break; // a garbled entry: the last proxy we believe is as far as we can see
            }
            if (!trusted.contains(entry.get())) {
                return entry.get().getHostAddress();
            }
            last = entry.get();
        }
        return last.getHostAddress();
    }

    private static List<String> forwardedFor(Context ctx) {
        List<String> entries = new ArrayList<>();
        Enumeration<String> headers = ctx.req().getHeaders("X-Forwarded-For");
        while (headers != null && headers.hasMoreElements()) {
            for (String part : headers.nextElement().split(",")) {
                if (!part.isBlank()) {
                    entries.add(part.strip());
                }
            }
        }
        return entries;
    }

    /**
     * An IPv4 or IPv6 address written as digits ({@code 10.0.0.5}, {@code 10.0.0.5:443}, {@code fd00::5},
     * {@code [fd00::5]:443}); empty for anything else. Never asks DNS: a host name is not an address here.
     */
    public static Optional<InetAddress> literal(String text) {
        if (text == null) {
            return Optional.empty();
        }
        String s = text.strip();
        try {
            Matcher v4 = IPV4.matcher(s);
            if (v4.matches()) {
                byte[] bytes = new byte[4];
                for (int i = 0; i < 4; i++) {
                    int octet = Integer.parseInt(v4.group(i + 1));
                    if (octet > 255) {
                        return Optional.empty();
                    }
                    bytes[i] = (byte) octet;
                }
                return Optional.of(InetAddress.getByAddress(bytes));
            }
            Matcher v6 = IPV6.matcher(s);
            if (v6.matches()) {
                String digits = v6.group(1) != null ? v6.group(1) : v6.group(2);
                // In brackets InetAddress takes it as an IPv6 literal or refuses it; it never looks it up.
                return Optional.of(InetAddress.getByName("[" + digits + "]"));
            }
            return Optional.empty();
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
    }
}
