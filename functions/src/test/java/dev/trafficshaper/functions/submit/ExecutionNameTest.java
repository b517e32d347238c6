package dev.trafficshaper.functions.submit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ExecutionNameTest {

    private static final String ALICE = "arn:aws:iam::123456789012:user/alice";

    @Test
    void distinctIdsOfOneTenantNeverShareAName() {
        String longPrefix = "x".repeat(67);
        List<String> ids = List.of("a.b", "a_b", "a:b", "a-b", longPrefix + "1", longPrefix + "2", "x".repeat(128));
        Set<String> names = new HashSet<>();
        for (String id : ids) {
            names.add(SubmitHandler.executionName(ALICE, id));
        }
        assertThat(names).hasSize(ids.size());
    }

    @Test
    void namesAreValidStepFunctionsNamesAndStablePerTenantAndId() {
        for (String id : List.of("simple-id_1", "with.dots:and:colons", "y".repeat(128))) {
            String name = SubmitHandler.executionName(ALICE, id);
            assertThat(name).matches("[A-Za-z0-9_-]{1,80}");
            assertThat(SubmitHandler.executionName(ALICE, id)).isEqualTo(name);
            assertThat(SubmitHandler.executionName("arn:aws:iam::123456789012:user/bob", id)).isNotEqualTo(name);
        }
        assertThat(SubmitHandler.executionName(ALICE, "simple-id_1")).endsWith("-simple-id_1");
    }
}
