package dev.ax.console;

import dev.ax.api.ClientAddress;
import dev.ax.domain.time.AxClock;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Failed console log-ins per client address: after {@code maxFailures} failures within {@code window},
 * that address may not try again until the oldest of them is {@code window} old. Tokens are long random
 * strings, so this is not what keeps them from being guessed; it keeps a script from trying millions.
 *
 * <p>A success is not counted and clears nothing: a person holding a viewer token could otherwise reset
 * the count between guesses at an admin token. An IPv6 client counts by its /64 network, which one host
 * usually has whole. The table is bounded: past {@code maxAddresses} addresses the one unheard of longest
 * is forgotten; an attacker with that many addresses is not slowed by a per-address limit anyway.
 *
 * <p>Time is the node's clock, so tests move it instead of waiting five minutes.
 */
final class LoginThrottle {
    static final int DEFAULT_MAX_FAILURES = 10;
    static final Duration DEFAULT_WINDOW = Duration.ofMinutes(5);
    static final int DEFAULT_MAX_ADDRESSES = 10_000;

    private final AxClock clock;
    private final int maxFailures;
    private final Duration window;
    private final Map<String, Deque<Instant>> failures; // guarded by this; each deque holds at most maxFailures times

    LoginThrottle(AxClock clock) {
        this(clock, DEFAULT_MAX_FAILURES, DEFAULT_WINDOW, DEFAULT_MAX_ADDRESSES);
    }

    LoginThrottle(AxClock clock, int maxFailures, Duration window, int maxAddresses) {
        if (maxFailures < 1 || maxAddresses < 1 || window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("maxFailures and maxAddresses must be at least 1 and window positive");
        }
        this.clock = clock;
        this.maxFailures = maxFailures;
        this.window = window;
        // In access order: an address that keeps being refused stays, the quiet ones go first.
        this.failures = new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Deque<Instant>> eldest) {
                return size() > maxAddresses;
            }
        };
    }

    /** When {@code address} may try again; empty when it may try now. */
    synchronized Optional<Instant> blockedUntil(String address) {
        String key = key(address);
        Deque<Instant> times = failures.get(key);
        if (times == null) {
            return Optional.empty();
        }
        forgetExpired(times, clock.now());
        if (times.isEmpty()) {
            failures.remove(key);
            return Optional.empty();
        }
        return times.size() < maxFailures
                ? Optional.empty()
                : Optional.of(times.peekFirst().plus(window));
    }

    synchronized void failed(String address) {
        Instant now = clock.now();
        Deque<Instant> times = failures.computeIfAbsent(key(address), k -> new ArrayDeque<>());
        forgetExpired(times, now);
        times.addLast(now);
        while (times.size() > maxFailures) {
            times.removeFirst();
        }
    }

    synchronized int addresses() {
        return failures.size();
    }

    int maxFailures() {
        return maxFailures;
    }

    Duration window() {
        return window;
    }

    AxClock clock() {
        return clock;
    }

    private void forgetExpired(Deque<Instant> times, Instant now) {
        Instant oldestKept = now.minus(window);
        while (!times.isEmpty() && !times.peekFirst().isAfter(oldestKept)) {
            times.removeFirst();
        }
    }

    /** An IPv6 address counts by its /64; anything else by itself. */
    static String key(String address) {
        Optional<InetAddress> parsed = ClientAddress.literal(address);
        if (parsed.isPresent() && parsed.get() instanceof Inet6Address v6) {
            return HexFormat.of().formatHex(v6.getAddress(), 0, 8) + "::/64";
        }
        return parsed.map(InetAddress::getHostAddress).orElse(address);
    }
}
