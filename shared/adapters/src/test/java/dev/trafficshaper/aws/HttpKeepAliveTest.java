package dev.trafficshaper.aws;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class HttpKeepAliveTest {

    private String before;

    @BeforeEach
    void remember() {
        before = System.getProperty(HttpKeepAlive.PROPERTY);
    }

    @AfterEach
    void restore() {
        if (before == null) {
            System.clearProperty(HttpKeepAlive.PROPERTY);
        } else {
            System.setProperty(HttpKeepAlive.PROPERTY, before);
        }
    }

    @Test
    void keepsAsManyConnectionsAliveAsTheWidestPoolWhenNothingIsSet() {
        System.clearProperty(HttpKeepAlive.PROPERTY);

        assertThat(HttpKeepAlive.ensure()).isEqualTo(HttpKeepAlive.CONNECTIONS_PER_HOST);
        assertThat(System.getProperty(HttpKeepAlive.PROPERTY)).isEqualTo("256");
    }

    @Test
    void leavesTheOperatorsChoiceAlone() {
        System.setProperty(HttpKeepAlive.PROPERTY, "16");

        assertThat(HttpKeepAlive.ensure()).isEqualTo(16);
        assertThat(System.getProperty(HttpKeepAlive.PROPERTY)).isEqualTo("16");
    }
}
