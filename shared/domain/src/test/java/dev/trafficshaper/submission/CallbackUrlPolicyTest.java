package dev.trafficshaper.submission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.URI;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class CallbackUrlPolicyTest {

    private final CallbackUrlPolicy strict = CallbackUrlPolicy.strict();
    private final CallbackUrlPolicy local = CallbackUrlPolicy.local();

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
            "https://2130706433/hook            | loopback",
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
            "https://exa mple.com/              | not a valid URL"})
    void strictModeRefuses(String url, String reason) {
        assertThatThrownBy(() -> strict.check(url))
                .isInstanceOfSatisfying(InvalidSubmissionException.class,
                        e -> assertThat(e.field()).isEqualTo("callbackUrl"))
                .hasMessageContaining(reason);
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
