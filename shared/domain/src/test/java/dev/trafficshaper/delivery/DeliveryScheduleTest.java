package dev.trafficshaper.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class DeliveryScheduleTest {

    @Test
    void theDefaultScheduleDoublesFromThirtySecondsToTwoHoursOverTwelveAttempts() {
        DeliverySchedule schedule = DeliverySchedule.defaults();
        List<String> pauses = new ArrayList<>();
        for (int attempt = 1; attempt <= 12; attempt++) {
            OptionalLong pause = schedule.retryAfter(attempt);
            pauses.add(pause.isPresent() ? Duration.ofMillis(pause.getAsLong()).toString() : "dead-letter");
        }

        assertThat(pauses).containsExactly("PT30S", "PT1M", "PT2M", "PT4M", "PT8M", "PT16M", "PT32M", "PT1H4M",
                "PT2H", "PT2H", "PT2H", "dead-letter");
        assertThat(Duration.ofMillis(schedule.spanMillis())).isEqualTo(Duration.ofHours(8).plusMinutes(7)
                .plusSeconds(30));
    }

    @Test
    void aScheduleOfOneAttemptDeadLettersAtOnce() {
        assertThat(DeliverySchedule.of(1, Duration.ZERO, Duration.ZERO).retryAfter(1)).isEmpty();
    }

    @Test
    void aPauseNeverPassesTheCapEvenAfterManyAttempts() {
        DeliverySchedule schedule = DeliverySchedule.of(1000, Duration.ofSeconds(1), Duration.ofMinutes(5));

        assertThat(schedule.retryAfter(999)).hasValue(Duration.ofMinutes(5).toMillis());
    }

    @Test
    void refusesSchedulesSqsCannotHold() {
        assertThatThrownBy(() -> DeliverySchedule.of(0, Duration.ZERO, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DeliverySchedule.of(3, Duration.ofMinutes(2), Duration.ofMinutes(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DeliverySchedule.of(3, Duration.ofMinutes(1), Duration.ofHours(13)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DeliverySchedule.defaults().retryAfter(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
