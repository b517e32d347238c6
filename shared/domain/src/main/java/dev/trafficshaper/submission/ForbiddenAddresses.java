package dev.trafficshaper.submission;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;

/**
 * Which IP addresses a webhook must never reach. A webhook is a request the shaper makes on a
 * caller's behalf; pointed at the shaper's own network it becomes server-side request forgery.
 * The JDK's {@code isSiteLocalAddress()} and friends miss most of the ways an address can name
 * such a target, so the ranges are listed here, from the IANA special-purpose registries.
 *
 * <p>IPv4, refused: {@code 0/8} (unspecified, "this network"), {@code 10/8}, {@code 172.16/12},
 * {@code 192.168/16} (private), {@code 100.64/10} (carrier-grade NAT), {@code 127/8} (loopback),
 * {@code 169.254/16} (link-local, including the instance metadata address), {@code 192.0.0/24}
 * (protocol assignments), {@code 192.0.2/24}, {@code 198.51.100/24}, {@code 203.0.113/24}
 * (documentation), {@code 198.18/15} (benchmarking), {@code 224/4} (multicast), {@code 240/4}
 * (reserved) and {@code 255.255.255.255} (broadcast).
 *
 * <p>IPv6, refused: {@code ::} and {@code ::1}, {@code ff00::/8} (multicast), {@code fe80::/10}
 * (link-local), {@code fec0::/10} (old site-local), {@code fc00::/7} (unique-local),
 * {@code 2001:db8::/32} (documentation), {@code 100::/64} (discard) and {@code 64:ff9b:1::/48}
 * (local-use NAT64, never public). Forms that carry an IPv4 address inside are judged by that
 * address: IPv4-mapped {@code ::ffff:0:0/96}, IPv4-compatible {@code ::/96}, NAT64
 * {@code 64:ff9b::/96}, 6to4 {@code 2002::/16} and Teredo {@code 2001::/32} (server and client).
 *
 * <p>Loopback is the one class a caller may allow (the local runtime, so a developer can receive
 * webhooks on their own machine); every other refusal holds in every mode.
 */
public final class ForbiddenAddresses {

    private ForbiddenAddresses() {
    }

    /** Why {@code address} must not be called, or empty when it may. */
    public static Optional<String> refusal(InetAddress address, boolean allowLoopback) {
        byte[] b = address.getAddress();
        if (address instanceof Inet4Address) {
            return ipv4(b, allowLoopback);
        }
        if (address instanceof Inet6Address) {
            return ipv6(b, allowLoopback);
        }
        return Optional.of("an unknown kind of address");
    }

    private static Optional<String> ipv4(byte[] b, boolean allowLoopback) {
        int a0 = b[0] & 0xff;
        int a1 = b[1] & 0xff;
        int a2 = b[2] & 0xff;
        if (a0 == 127) {
            return allowLoopback ? Optional.empty() : reason("a loopback address");
        }
        if (a0 == 0) {
            return reason("an unspecified address");
        }
        if (a0 == 255 && a1 == 255 && a2 == 255 && (b[3] & 0xff) == 255) {
            return reason("the broadcast address");
        }
        if (a0 == 169 && a1 == 254) {
            return reason("a link-local address");
        }
        if (a0 == 10 || (a0 == 172 && (a1 & 0xf0) == 16) || (a0 == 192 && a1 == 168)
                || (a0 == 100 && (a1 & 0xc0) == 64)) {
            return reason("a private address");
        }
        if (a0 >= 224 && a0 <= 239) {
            return reason("a multicast address");
        }
        if (a0 >= 240) {
            return reason("a reserved address");
        }
        if ((a0 == 192 && a1 == 0 && (a2 == 0 || a2 == 2)) || (a0 == 198 && a1 == 51 && a2 == 100)
                || (a0 == 203 && a1 == 0 && a2 == 113) || (a0 == 198 && (a1 & 0xfe) == 18)) {
            return reason("a reserved address");
        }
        return Optional.empty();
    }

    private static Optional<String> ipv6(byte[] b, boolean allowLoopback) {
        if (allZero(b, 0, 15)) {
            int last = b[15] & 0xff;
            if (last == 0) {
                return reason("an unspecified address");
            }
            if (last == 1) {
                return allowLoopback ? Optional.empty() : reason("a loopback address");
            }
        }
        int b0 = b[0] & 0xff;
        int b1 = b[1] & 0xff;
        if (b0 == 0xff) {
            return reason("a multicast address");
        }
        if (b0 == 0xfe && (b1 & 0xc0) == 0x80) {
            return reason("a link-local address");
        }
        if (b0 == 0xfe && (b1 & 0xc0) == 0xc0) {
            return reason("a private address");
        }
        if ((b0 & 0xfe) == 0xfc) {
            return reason("a private address");
        }
        if (b0 == 0x20 && b1 == 0x01 && (b[2] & 0xff) == 0x0d && (b[3] & 0xff) == 0xb8) {
            return reason("a reserved address");
        }
        if (b0 == 0x01 && b1 == 0 && allZero(b, 2, 8)) {
            return reason("a reserved address");
        }
        if (b0 == 0 && b1 == 0x64 && (b[2] & 0xff) == 0xff && (b[3] & 0xff) == 0x9b) {
            if ((b[4] & 0xff) == 0 && (b[5] & 0xff) == 1) {
                return reason("a local-use NAT64 address");
            }
            if (allZero(b, 4, 12)) {
                return embedded(b, 12, 0, "NAT64", allowLoopback);
            }
        }
        if (allZero(b, 0, 10) && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff) {
            return embedded(b, 12, 0, "IPv4-mapped", allowLoopback);
        }
        if (allZero(b, 0, 12)) {
            return embedded(b, 12, 0, "IPv4-compatible", allowLoopback);
        }
        if (b0 == 0x20 && b1 == 0x02) {
            return embedded(b, 2, 0, "6to4", allowLoopback);
        }
        if (b0 == 0x20 && b1 == 0x01 && b[2] == 0 && b[3] == 0) {
            Optional<String> server = embedded(b, 4, 0, "Teredo", allowLoopback);
            return server.isPresent() ? server : embedded(b, 12, 0xff, "Teredo", allowLoopback);
        }
        return Optional.empty();
    }

    /** The IPv4 address at {@code offset}, each byte XORed with {@code mask}, judged as IPv4. */
    private static Optional<String> embedded(byte[] b, int offset, int mask, String form, boolean allowLoopback) {
        byte[] v4 = new byte[4];
        for (int i = 0; i < 4; i++) {
            v4[i] = (byte) ((b[offset + i] & 0xff) ^ mask);
        }
        return ipv4(v4, allowLoopback).map(why -> why + " (" + form + " " + dotted(v4) + ")");
    }

    private static String dotted(byte[] v4) {
        try {
            return InetAddress.getByAddress(v4).getHostAddress();
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean allZero(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return true;
    }

    private static Optional<String> reason(String why) {
        return Optional.of(why);
    }
}
