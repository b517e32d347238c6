package dev.trafficshaper.infra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.App;

/** A production stack can be destroyed and created again, and it synthesizes as a current CDK app does. */
class RecreatableStackTest {

    @Test
    void retainedLogGroupsAreNamedAfterTheStackCreationThatMadeThem() {
        Map<String, Map<String, Object>> groups = SynthesizedStacks.production().template()
                .findResources("AWS::Logs::LogGroup");
        assertThat(groups).hasSizeGreaterThanOrEqualTo(9);
        groups.forEach((id, group) -> {
            assertThat(group.get("DeletionPolicy")).as(id).isEqualTo("Retain");
            Object name = ((Map<?, ?>) group.get("Properties")).get("LogGroupName");
            if (name != null) { // else CloudFormation generates a unique name
                assertThat(name.toString()).as(id + ": a retained log group with a fixed name blocks the next stack")
                        .contains("Fn::Split").contains("AWS::StackId");
            }
        });
    }

    @Test
    void cdkJsonSetsEveryFeatureFlagTheCdkLibraryRecommends() throws IOException {
        Map<String, Object> recommended = recommendedFlags();
        assertThat(recommended).hasSizeGreaterThan(50);
        assertThat(SynthesizedStacks.cdkJsonContext()).containsAllEntriesOf(recommended);
    }

    /** {@code recommended-feature-flags.json} from the aws-cdk-lib jar's bundled JavaScript package. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> recommendedFlags() throws IOException {
        try (InputStream tar = new GZIPInputStream(findBundle())) {
            byte[] header = new byte[512];
            while (tar.readNBytes(header, 0, 512) == 512 && header[0] != 0) {
                String name = new String(header, 0, 100, StandardCharsets.US_ASCII).trim().replace("\0", "");
                long size = Long.parseLong(new String(header, 124, 11, StandardCharsets.US_ASCII).trim(), 8);
                byte[] body = tar.readNBytes((int) size);
                tar.readNBytes((int) ((512 - size % 512) % 512));
                if (name.equals("package/recommended-feature-flags.json")) {
                    return new ObjectMapper().readValue(body, Map.class);
                }
            }
        }
        throw new IllegalStateException("recommended-feature-flags.json is not in the aws-cdk-lib jar");
    }

    private static InputStream findBundle() throws IOException {
        String jar = App.class.getProtectionDomain().getCodeSource().getLocation().getPath();
        try (java.util.zip.ZipFile zip = new java.util.zip.ZipFile(jar)) {
            var entry = zip.stream().filter(e -> e.getName().endsWith(".jsii.tgz")).findFirst().orElseThrow();
            try (InputStream in = zip.getInputStream(entry)) {
                ByteArrayOutputStream copy = new ByteArrayOutputStream();
                in.transferTo(copy);
                return new java.io.ByteArrayInputStream(copy.toByteArray());
            }
        }
    }

}
