package dev.trafficshaper.lifecycle;

import static dev.trafficshaper.lifecycle.ShaperFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.model.Backend;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.pacing.PacerSettings;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.request.NewRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The drainer over the in-memory adapters on a fake clock, with one tenant holding 10,000 queued
 * requests, queued before four others holding 50 each, all in one lane. The model takes 6,000
 * requests a minute at a target of 100% without slow start: one admission every 10 ms. Fair
 * sharing means each of the five tenants gets a fifth of the admissions while all have work, from
 * the first admissions on; a cap on the heavy tenant must leave its share to the others instead of
 * idling the model.
 */
@Timeout(30)
class DrainFairnessTest {

    private static final String MODEL = "shared-model";
    private static final String HEAVY = "arn:aws:iam::111111111111:role/batch-import";
    private static final List<String> LIGHT = List.of("arn:aws:iam::222222222222:role/chat",
            "arn:aws:iam::333333333333:role/search", "arn:aws:iam::444444444444:role/support",
            "arn:aws:iam::555555555555:role/reports");
    private static final long DEADLINE = T0 + 3_600_000;

    private record Admission(long atMillis, String tenant) {
    }

    private final List<Admission> admissions = new ArrayList<>();

    @Test
    void everyLightTenantGetsItsFairShareFromTheFirstSecondDespiteAHeavyBacklog() throws Exception {
        ShaperFixture shaper = queueWithOneHeavyTenant(Map.of());

        DrainService.Report report = drainer(shaper).drain(MODEL, "drainer-a", T0 + 4_000);

        assertThat(report.admitted()).isEqualTo(400);
        assertThat(admissions.subList(0, 5)).extracting(Admission::tenant)
                .as("the first round serves every tenant once, the oldest request first")
                .startsWith(HEAVY).containsExactlyInAnyOrderElementsOf(tenants());
        for (int second = 0; second < 2; second++) {
            Map<String, Integer> perTenant = perTenant(second);
            assertThat(perTenant).as("second %d", second).containsOnlyKeys(tenants());
            assertThat(perTenant.values()).as("second %d: a fifth of 100 admissions each", second)
                    .allSatisfy(count -> assertThat(count).isBetween(19, 21));
        }
        assertThat(countOf(LIGHT, 0, 250)).as("the light tenants' 200 requests go in the first 250 admissions")
                .isEqualTo(200);
        assertThat(perTenant(3)).as("then the heavy tenant takes the whole model").containsOnlyKeys(HEAVY)
                .containsEntry(HEAVY, 100);
        assertThat(shaper.queue.depth(MODEL, shaper.now())).isEqualTo(10_200 - 400);
    }

    @Test
    void aCapOnTheHeavyTenantLeavesItsShareToTheOthersInsteadOfIdlingTheModel() throws Exception {
        ShaperFixture shaper = queueWithOneHeavyTenant(Map.of(HEAVY, 0.1));

        drainer(shaper).drain(MODEL, "drainer-a", T0 + 2_000);

        Map<String, Integer> first = perTenant(0);
        assertThat(first.values().stream().mapToInt(Integer::intValue).sum()).as("the model runs at its rate")
                .isBetween(98, 100);
        assertThat(first.get(HEAVY)).as("10 a second, plus the pacer's 250 ms allowance for lateness")
                .isBetween(10, 13);
        Map<String, Integer> second = perTenant(1);
        assertThat(second.values().stream().mapToInt(Integer::intValue).sum()).isBetween(98, 100);
        assertThat(second.get(HEAVY)).as("its cap: 10% of 100 a second").isBetween(9, 11);
        for (String light : LIGHT) {
            assertThat(second.get(light)).as("a quarter of the other 90: %s", light).isBetween(21, 24);
        }
    }

    private ShaperFixture queueWithOneHeavyTenant(Map<String, Double> tenantCaps) {
        PacerSettings pacing = PacerSettings.builder().targetUtilization(1.0).slowStartMillis(0).headroom(false)
                .tenantCaps(tenantCaps).build();
        ShaperFixture shaper = new ShaperFixture(ModelCatalog.of(List.of(new ModelConfig(MODEL,
                "amazon.nova-lite-v1:0", Backend.CONVERSE, new Quota(0, 6_000, 0, 0, 1), 1_000, 100_000, pacing, 4,
                900, 3_600, null))));
        shaper.clock.set(T0 - 60_000);
        // nothing here runs the requests, so they can share one stored body
        PayloadRef body = shaper.storeBody("any", DEADLINE);
        for (int i = 0; i < 10_000; i++) {
            shaper.enqueue(request("heavy-" + i, HEAVY, body));
            shaper.clock.advance(i % 2);
        }
        shaper.clock.set(T0 - 1_000);
        for (int i = 0; i < 50; i++) {
            for (String light : LIGHT) {
                shaper.enqueue(request(light.substring(light.lastIndexOf('/') + 1) + "-" + i, light, body));
            }
            shaper.clock.advance(1);
        }
        shaper.clock.set(T0);
        shaper.clock.failAfter(T0 + 60_000);
        return shaper;
    }

    private static NewRequest request(String requestId, String tenant, PayloadRef body) {
        return NewRequest.builder().requestId(requestId).tenant(tenant).modelKey(MODEL).lane(Lane.BULK)
                .deadlineMillis(DEADLINE).estimate(TokenUsage.of(10, ShaperFixture.DEFAULT_MAX_TOKENS))
                .payloadRef(body).taskToken("token-" + requestId).build();
    }

    private DrainService drainer(ShaperFixture shaper) {
        return DrainService.builder().catalog(shaper.catalog).queue(shaper.queue).requests(shaper.requests)
                .leases(shaper.leases).board(shaper.board)
                .dispatch((modelKey, requestId) -> admissions.add(new Admission(shaper.now() - T0,
                        shaper.record(requestId).tenant())))
                .wake(shaper.wake).callback(shaper.callback).metrics(shaper.metrics).clock(shaper.clock).build();
    }

    private static List<String> tenants() {
        List<String> all = new ArrayList<>(List.of(HEAVY));
        all.addAll(LIGHT);
        return all;
    }

    private Map<String, Integer> perTenant(int second) {
        Map<String, Integer> counts = new TreeMap<>();
        for (Admission admission : admissions) {
            if (admission.atMillis() >= second * 1_000L && admission.atMillis() < (second + 1) * 1_000L) {
                counts.merge(admission.tenant(), 1, Integer::sum);
            }
        }
        return counts;
    }

    private long countOf(List<String> tenants, int from, int to) {
        return admissions.subList(from, to).stream().filter(a -> tenants.contains(a.tenant())).count();
    }
}
