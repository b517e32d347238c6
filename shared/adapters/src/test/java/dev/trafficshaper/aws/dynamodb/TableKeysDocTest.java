package dev.trafficshaper.aws.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.payload.PayloadKind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The key table in docs/persistence.md is the one in {@link TableKeys}, and the builders follow it. */
class TableKeysDocTest {

    private static final Path DOC = Path.of("..", "..", "docs", "persistence.md");

    @Test
    void theDocumentedKeyTableIsTheCodesKeySchema() throws IOException {
        String doc = Files.readString(DOC);
        String table = doc.substring(doc.indexOf("<!-- key-patterns:start -->"),
                doc.indexOf("<!-- key-patterns:end -->"));
        List<TableKeys.KeyPattern> documented = new ArrayList<>();
        for (String line : table.lines().toList()) {
            if (!line.startsWith("|") || line.startsWith("| Entity") || line.startsWith("| ---")) {
                continue;
            }
            String[] cells = line.split("\\|");
            documented.add(new TableKeys.KeyPattern(cells[1].strip(), unquote(cells[2]), unquote(cells[3])));
        }

        assertThat(documented).containsExactlyElementsOf(TableKeys.PATTERNS);
    }

    @Test
    void theKeyBuildersProduceKeysOfTheDocumentedShapes() {
        assertThat(TableKeys.modelPk("nova-lite")).matches(regex(pattern("drainer lease").pk()));
        assertThat(TableKeys.queuePk("nova-lite", 7)).matches(regex(pattern("queue item").pk()));
        assertThat(TableKeys.queueSk(Lane.BULK, "tenant-1", 1_700_000_000_123L, "r-1"))
                .isEqualTo("2-bulk#" + TableKeys.tenantDigest("tenant-1") + "#001700000000123#r-1")
                .matches(regex(pattern("queue item").sk()));
        assertThat(TableKeys.requestPk("r-1")).matches(regex(pattern("request status").pk()));
        assertThat(TableKeys.payloadSk(PayloadKind.RESULT, "ab".repeat(32)))
                .matches(regex(pattern("payload").sk()));
        assertThat(TableKeys.usagePk("nova-lite", 1_700_000_040_000L, 3))
                .matches(regex(pattern("usage settlement").pk()));
        assertThat(TableKeys.usageSk("r-1")).matches(regex(pattern("usage settlement").sk()));
    }

    @Test
    void aTenantDigestIsSixteenHexDigitsOfItsSha256() {
        assertThat(TableKeys.tenantDigest("arn:aws:sts::123456789012:assumed-role/app/s#1"))
                .hasSize(TableKeys.TENANT_DIGEST_LENGTH).matches("[0-9a-f]{16}")
                .isNotEqualTo(TableKeys.tenantDigest("arn:aws:sts::123456789012:assumed-role/app/s#2"));
        assertThat(TableKeys.tenantDigest("abc")).as("SHA-256 of abc starts ba7816bf").isEqualTo("ba7816bf8f01cfea");
    }

    @Test
    void aShardSortsInteractiveBeforeBulkThenTenantByTenantEachOldestFirst() {
        String a = "tenant-a";
        String b = "tenant-b";
        boolean aFirst = TableKeys.tenantDigest(a).compareTo(TableKeys.tenantDigest(b)) < 0;
        String first = aFirst ? a : b;
        String second = aFirst ? b : a;
        List<String> keys = new ArrayList<>(List.of(
                TableKeys.queueSk(Lane.BULK, first, 5, "a"),
                TableKeys.queueSk(Lane.INTERACTIVE, second, 1, "z"),
                TableKeys.queueSk(Lane.INTERACTIVE, first, 900_000_000_000_000L, "y"),
                TableKeys.queueSk(Lane.INTERACTIVE, first, 10, "b"),
                TableKeys.queueSk(Lane.INTERACTIVE, first, 9, "c")));
        keys.sort(String::compareTo);

        assertThat(keys).containsExactly(
                TableKeys.queueSk(Lane.INTERACTIVE, first, 9, "c"),
                TableKeys.queueSk(Lane.INTERACTIVE, first, 10, "b"),
                TableKeys.queueSk(Lane.INTERACTIVE, first, 900_000_000_000_000L, "y"),
                TableKeys.queueSk(Lane.INTERACTIVE, second, 1, "z"),
                TableKeys.queueSk(Lane.BULK, first, 5, "a"));
    }

    @Test
    void afterAFlowComesEveryKeyOfItAndNoKeyOfTheNext() {
        String digest = TableKeys.tenantDigest("tenant-a");
        String flow = TableKeys.flowPrefix(Lane.INTERACTIVE, digest);
        String after = TableKeys.afterFlow(flow);
        String newest = TableKeys.queueSk(Lane.INTERACTIVE, "tenant-a", 999_999_999_999_999L, "~".repeat(128));
        String next = TableKeys.flowPrefix(Lane.INTERACTIVE, nextDigest(digest)) + "000000000000000#a";

        assertThat(TableKeys.flowPrefixOf(newest)).isEqualTo(flow);
        assertThat(newest).startsWith(flow).isLessThan(after);
        assertThat(after).isLessThan(next);
        assertThat(after).isLessThan(TableKeys.lanePrefix(Lane.BULK));
        assertThatThrownBy(() -> TableKeys.afterFlow("1-interactive")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TableKeys.flowPrefixOf("1-interactive#x")).isInstanceOf(IllegalArgumentException.class);
    }

    /** The digest right after {@code digest} in text order: the closest another tenant can come. */
    private static String nextDigest(String digest) {
        return String.format("%016x", Long.parseUnsignedLong(digest, 16) + 1);
    }

    private static TableKeys.KeyPattern pattern(String entity) {
        return TableKeys.PATTERNS.stream().filter(p -> p.entity().equals(entity)).findFirst().orElseThrow();
    }

    private static String unquote(String cell) {
        return cell.strip().replace("`", "");
    }

    /** {@code {name}} matches one key part (no '#'); {@code {name:15}} exactly 15 digits. */
    private static String regex(String pattern) {
        StringBuilder out = new StringBuilder();
        var matcher = Pattern.compile("\\{([A-Za-z0-9]+)(?::(\\d+))?}|[^{]+").matcher(pattern);
        while (matcher.find()) {
            if (matcher.group(1) == null) {
                out.append(Pattern.quote(matcher.group()));
            } else if (matcher.group(2) != null) {
                out.append("\\d{").append(matcher.group(2)).append('}');
            } else {
                out.append("[^#]+");
            }
        }
        return out.toString();
    }
}
