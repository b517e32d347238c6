package dev.trafficshaper.functions.cost;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * docs/cost-model.md's per-million table is the cost model applied to the doc's counted calls
 * (which LifecycleCostIT holds to a run), so neither the prices nor the counts can drift from the
 * prose without a test failing.
 */
class CostModelDocTest {

    @Test
    void thePerMillionTableIsTheModelAppliedToTheCountedCalls() throws IOException {
        String doc = Files.readString(docsFile(), StandardCharsets.UTF_8);

        CountedRequest counted = CountedRequest.parse(doc);

        assertThat(counted.calls()).isNotEmpty();
        assertThat(CostModelDoc.perMillionSection(doc))
                .as("docs/cost-model.md's per-million table; regenerate it with LifecycleCostIT -Dcost.update=true")
                .isEqualTo(CostModelDoc.perMillion(counted));
    }

    @Test
    void theCountedSectionReadsBackAsItWasWritten() {
        CountedRequest request = new CountedRequest(List.of(
                new CountedRequest.Row("Submit", "DynamoDb", "GetItem", 2, 0, 1.5),
                new CountedRequest.Row("Submit", "S3", "PutObject", 1, 0, 0),
                new CountedRequest.Row("Budget Manager", "DynamoDb", "TransactWriteItems", 1, 6, 0)),
                Map.of("Submit", 1.0), 2, 1_234);

        CountedRequest read = CountedRequest.parse("intro\n" + request.render() + "\nmore");

        assertThat(read).isEqualTo(request);
        assertThat(read.totalCalls()).isEqualTo(4);
        assertThat(read.totalWriteUnits()).isEqualTo(6);
        assertThat(read.calls("S3", "PutObject")).isEqualTo(1);
    }

    @Test
    void theModelPricesTransitionsUnitsAndInvocationsAtListPrices() {
        CountedRequest request = new CountedRequest(List.of(
                new CountedRequest.Row("Submit", "DynamoDb", "PutItem", 1, 20, 0),
                new CountedRequest.Row("Submit", "S3", "PutObject", 1, 0, 0)), Map.of("Submit", 1.0), 2, 1_000);

        List<CostModel.Line> lines = CostModel.price(request);

        assertThat(line(lines, "Step Functions Standard")).isEqualTo(50.0);
        assertThat(line(lines, "S3")).isEqualTo(5.0);
        assertThat(line(lines, "API Gateway REST")).isEqualTo(7.0);
        assertThat(line(lines, "DynamoDB on-demand")).isCloseTo(20 * 0.625
                + CostModel.drainerWriteUnits() * 0.625 + CostModel.drainerReadUnits() * 0.125,
                org.assertj.core.data.Offset.offset(1e-9));
        assertThat(line(lines, "Lambda requests")).isCloseTo(0.2, org.assertj.core.data.Offset.offset(1e-9));
    }

    private static double line(List<CostModel.Line> lines, String service) {
        return lines.stream().filter(l -> l.service().equals(service)).findFirst().orElseThrow().perMillion();
    }

    private static Path docsFile() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("docs").resolve("cost-model.md"))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("docs/cost-model.md above the working directory").isNotNull();
        return dir.resolve("docs").resolve("cost-model.md");
    }
}
