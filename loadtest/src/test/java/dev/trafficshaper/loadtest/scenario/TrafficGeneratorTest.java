package dev.trafficshaper.loadtest.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.loadtest.sim.SimRequest;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class TrafficGeneratorTest {

    @Test
    void eachTenantSendsItsWeightedShareOfTheRequests() {
        Scenario heavy = BuiltInScenarios.find("heavy-tenant").orElseThrow();

        List<SimRequest> requests = TrafficGenerator.generate(heavy, 42);

        Map<String, Long> byTenant = requests.stream()
                .collect(Collectors.groupingBy(SimRequest::tenant, Collectors.counting()));
        assertThat(byTenant).containsOnlyKeys("tenant-0", "tenant-1", "tenant-2", "tenant-3", "tenant-4");
        assertThat((double) byTenant.get("tenant-0") / requests.size()).isBetween(0.68, 0.72);
        for (String light : List.of("tenant-1", "tenant-2", "tenant-3", "tenant-4")) {
            assertThat((double) byTenant.get(light) / requests.size()).as(light).isBetween(0.065, 0.085);
        }
    }

    @Test
    void withoutWeightsTenantsShareEqually() {
        Scenario mixed = BuiltInScenarios.find("mixed-sizes").orElseThrow();

        List<SimRequest> requests = TrafficGenerator.generate(mixed, 42);

        Map<String, Long> byTenant = requests.stream()
                .collect(Collectors.groupingBy(SimRequest::tenant, Collectors.counting()));
        assertThat(byTenant).hasSize(3);
        byTenant.values().forEach(n -> assertThat((double) n / requests.size()).isBetween(0.30, 0.37));
    }
}
