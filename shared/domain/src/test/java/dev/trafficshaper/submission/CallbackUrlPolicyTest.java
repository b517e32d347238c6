package dev.trafficshaper.submission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class CallbackUrlPolicyTest {

    /** Names resolved without DNS; any other name does not resolve. */
    static final AddressResolver NAMES = host -> switch (host) {
        case "hooks.example.com" -> List.of(address("93.184.216.34"));
        case "internal.example.com" -> List.of(address("93.184.216.34"), address("10.0.0.7"));
        case "metadata.example.com" -> List.of(address("169.254.169.254"));
        case "v6loop.example.com" -> List.of(address("::1"));
        case "localhost" -> List.of(address("127.0.0.1"));
        default -> throw new UnknownHostException(host);
    };

    private final CallbackUrlPolicy strict = CallbackUrlPolicy.strict().resolvingWith(NAMES);
    private final CallbackUrlPolicy local = CallbackUrlPolicy.local().resolvingWith(NAMES);

    @ParameterizedTest
    @ValueSource(strings = {"https://hooks.example.com/done", "https://hooks.example.com:8443/a/b?c=d#e",
            "https://93.184.216.34/hook", "https://[2606:2800:220:1:248:1893:25c8:1946]/hook",
            "https://172.32.0.1/just-outside-172.16/12", "https://100.128.0.1/just-outside-100.64/10",
            "HTTPS://Hooks.Example.com/upper-case-scheme"})
    void acceptsHttpsToPublicTargets(String url) {
        assertThat(strict.check(url)).isEqualTo(URI.create(url));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "http://hooks.example.com/done      | must be an https URL",
            "ftp://hooks.example.com/done       | must be an https URL",
            "hooks.example.com/done             | must be an https URL",
            "https://127.0.0.1/hook             | loopback",
            "https://127.1/hook                 | host",
            "https://2130706433/hook            | canonical",
            "https://[::1]/hook                 | loopback",
            "https://[::ffff:127.0.0.1]/hook    | loopback",
            "https://localhost/hook             | loopback",
            "https://LOCALHOST:8443/hook        | loopback",
            "https://api.localhost/hook         | loopback",
            "https://10.1.2.3/hook              | private",
            "https://172.16.0.1/hook            | private",
            "https://172.31.255.254/hook        | private",
            "https://192.168.1.10/hook          | private",
            "https://[fc00::1]/hook             | private",
            "https://[fd12:3456:789a::1]/hook   | private",
            "https://100.64.0.1/hook            | private",
            "https://100.127.255.254/hook       | private",
            "https://169.254.169.254/latest     | link-local",
            "https://[fe80::1]/hook             | link-local",
            "https://0.0.0.0/hook               | unspecified",
            "https://[::]/hook                  | unspecified",
            "https://224.0.0.1/hook             | multicast",
            "https://user:secret@example.com/   | credentials",
            "https://token@example.com/         | credentials",
            "https:///no-host                   | host",
            "https://exa mple.com/              | not a valid URL",
            "https://255.255.255.255/hook       | broadcast",
            "https://[::127.0.0.1]/hook         | loopback address (IPv4-compatible 127.0.0.1)",
            "https://[::a9fe:a9fe]/hook         | link-local address (IPv4-compatible 169.254.169.254)",
            "https://[::ffff:169.254.169.254]/  | link-local",
            "https://[::ffff:10.0.0.1]/hook     | private",
            "https://[64:ff9b::a9fe:a9fe]/hook  | link-local address (NAT64 169.254.169.254)",
            "https://[64:ff9b::7f00:1]/hook     | loopback address (NAT64 127.0.0.1)",
            "https://[64:ff9b::c0a8:1]/hook     | private address (NAT64 192.168.0.1)",
            "https://[64:ff9b:1::a9fe:a9fe]/    | local-use NAT64",
            "https://[2002:7f00:1::1]/hook      | loopback address (6to4 127.0.0.1)",
            "https://[2002:a9fe:a9fe::]/hook    | link-local address (6to4 169.254.169.254)",
            "https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/ | loopback address (Teredo 127.0.0.1)",
            "https://[ff02::1]/hook             | multicast",
            "https://[ff0e::1]/hook             | multicast",
            "https://239.255.255.250/hook       | multicast",
            "https://0.1.2.3/hook               | unspecified",
            "https://[fe80::1%25eth0]/hook      | zone",
            "https://[febf::1]/hook             | link-local",
            "https://240.0.0.1/hook             | reserved",
            "https://192.0.2.1/hook             | reserved",
            "https://[2001:db8::1]/hook         | reserved",
            "https://0177.0.0.1/hook            | canonical",
            "https://0x7f.1/hook                | host",
            "https://0x7f000001/hook            | canonical",
            "https://017700000001/hook          | canonical",
            "https://127.000.000.001/hook       | canonical",
            "https://127.0.0.1./hook            | host",
            "https://1.2.3.4.5/hook             | host",
            "https://example.com:99999/         | port",
            "https://example.com:0/             | port",
            "https://hooks.example.com:65536/   | port",
            "https://@hooks.example.com/        | credentials",
            "https://internal.example.com/hook  | resolves to a private address",
            "https://metadata.example.com/hook  | resolves to a link-local address",
            "https://v6loop.example.com/hook    | resolves to a loopback address"})
    void strictModeRefuses(String url, String reason) {
        assertThatThrownBy(() -> strict.check(url))
                .isInstanceOfSatisfying(InvalidSubmissionException.class,
                        e -> assertThat(e.field()).isEqualTo("callbackUrl"))
                .hasMessageContaining(reason);
    }

    @ParameterizedTest
    @ValueSource(strings = {"https://[64:ff9b::5db8:d822]/public-via-nat64", "https://[2002:5db8:d822::1]/public-6to4",
            "https://nowhere.invalid/not-yet-resolvable", "https://hooks.example.com:65535/"})
    void acceptsPublicAddressesInsideEmbeddingFormsAndNamesThatDoNotResolveYet(String url) {
        assertThat(strict.check(url)).isEqualTo(URI.create(url));
    }

    @Test
    void theDeliveryTargetIsTheCheckedAddressUnderTheCallersName() {
        CallbackTarget target = strict.target("https://hooks.example.com:8443/a/b?c=d");

        assertThat(target.address().getHostAddress()).isEqualTo("93.184.216.34");
        assertThat(target.hostHeader()).isEqualTo("hooks.example.com:8443");
        assertThat(target.pathAndQuery()).isEqualTo("/a/b?c=d");
        assertThat(strict.target("https://hooks.example.com").port()).isEqualTo(443);
        assertThat(strict.target("https://hooks.example.com").pathAndQuery()).isEqualTo("/");
    }

    @Test
    void aNameThatResolvesElsewhereAtDeliveryIsRefusedThen() {
        List<InetAddress> answer = new ArrayList<>(List.of(address("93.184.216.34")));
        CallbackUrlPolicy rebinding = CallbackUrlPolicy.strict().resolvingWith(host -> List.copyOf(answer));
        String url = "https://rebind.example.net/hook";
        assertThat(rebinding.check(url)).isEqualTo(URI.create(url));

        answer.set(0, address("127.0.0.1"));

        assertThatThrownBy(() -> rebinding.target(url)).isInstanceOf(InvalidSubmissionException.class)
                .hasMessageContaining("resolves to a loopback address");
    }

    @Test
    void aNameThatDoesNotResolveAtDeliveryIsNotCalled() {
        assertThatThrownBy(() -> strict.target("https://nowhere.invalid/hook"))
                .isInstanceOf(InvalidSubmissionException.class).hasMessageContaining("does not resolve");
    }

    @Test
    void refusesAnOverlongUrl() {
        String url = "https://hooks.example.com/" + "a".repeat(CallbackUrlPolicy.MAX_LENGTH);

        assertThatThrownBy(() -> strict.check(url)).isInstanceOf(InvalidSubmissionException.class)
                .hasMessageContaining("at most " + CallbackUrlPolicy.MAX_LENGTH);
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://localhost:8080/hook", "http://127.0.0.1:9000/hook", "http://[::1]:9000/hook",
            "https://localhost/hook", "http://hooks.example.com/done"})
    void localModeAllowsHttpAndLoopback(String url) {
        assertThat(local.check(url)).isEqualTo(URI.create(url));
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://10.0.0.1/hook", "http://192.168.0.5/hook", "http://169.254.169.254/latest",
            "http://[fc00::1]/hook", "http://user:pw@localhost/hook", "ftp://localhost/hook"})
    void localModeStillRefusesPrivateTargetsCredentialsAndOtherSchemes(String url) {
        assertThatThrownBy(() -> local.check(url)).isInstanceOf(InvalidSubmissionException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://[::ffff:127.0.0.1]:9000/hook", "http://[::127.0.0.1]:9000/hook",
            "http://[64:ff9b::7f00:1]/hook"})
    void localModeAllowsLoopbackInEveryForm(String url) {
        assertThat(local.check(url)).isEqualTo(URI.create(url));
    }

    private static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void judgesResolvedAddressesByTheSameRules() throws Exception {
        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        InetAddress metadata = InetAddress.getByName("169.254.169.254");
        InetAddress publicAddress = InetAddress.getByName("93.184.216.34");

        assertThat(strict.refusal(loopback)).contains("a loopback address");
        assertThat(local.refusal(loopback)).isEmpty();
        assertThat(strict.refusal(metadata)).contains("a link-local address");
        assertThat(local.refusal(metadata)).contains("a link-local address");
        assertThat(strict.refusal(publicAddress)).isEmpty();
    }
}
