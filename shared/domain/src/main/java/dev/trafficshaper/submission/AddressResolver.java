package dev.trafficshaper.submission;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Turns a callback host name into the addresses it stands for now. A port, so that the callback
 * rules can be tested without DNS and so that the delivery side resolves exactly once and
 * connects to the address it checked.
 */
@FunctionalInterface
public interface AddressResolver {

    /** Every address of {@code host}, never empty; throws when the name does not resolve. */
    List<InetAddress> resolve(String host) throws UnknownHostException;

    /** The machine's resolver ({@link InetAddress#getAllByName}). */
    static AddressResolver system() {
        return host -> List.of(InetAddress.getAllByName(host));
    }
}
