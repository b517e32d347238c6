package dev.trafficshaper.aws.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The documented call model of a heads read (docs/persistence.md), page by page, at 50 per
 * tenant: pages of 100 items.
 */
class HeadsQueriesModelTest {

    @Test
    void lightFlowsShareOnePage() {
        assertThat(DynamoDbRequestQueue.headsQueriesOfShard(new long[] {4, 4, 4, 4, 4}, 50)).isEqualTo(1);
        assertThat(DynamoDbRequestQueue.headsQueriesOfShard(new long[] {}, 50)).isEqualTo(1);
        assertThat(DynamoDbRequestQueue.headsQueries(16, 5, 50, 50)).isEqualTo(16);
    }

    @Test
    void aHeavyFlowCostsOneJumpWhereverItSits() {
        assertThat(DynamoDbRequestQueue.headsQueriesOfShard(new long[] {625, 4, 4, 4, 4}, 50)).isEqualTo(2);
        assertThat(DynamoDbRequestQueue.headsQueriesOfShard(new long[] {4, 4, 625, 4, 4}, 50)).isEqualTo(2);
        assertThat(DynamoDbRequestQueue.headsQueriesOfShard(new long[] {4, 4, 4, 4, 625}, 50)).isEqualTo(2);
        assertThat(DynamoDbRequestQueue.headsQueriesOfShard(new long[] {625, 4, 625, 4, 10_000}, 50)).isEqualTo(4);
    }

    @Test
    void aFlowWithFewerThanItsLimitAtThePageEndIsReadOn() {
        // the page ends 30 items into the third flow, which wants 50: the next page goes on inside it
        assertThat(DynamoDbRequestQueue.headsQueriesOfShard(new long[] {40, 30, 80}, 50)).isEqualTo(2);
        // 300 items of light flows: three full pages, the last one reports more, and an empty fourth
        long[] light = new long[100];
        Arrays.fill(light, 3);
        assertThat(DynamoDbRequestQueue.headsQueriesOfShard(light, 50)).isEqualTo(4);
    }

    @Test
    void aLargerLimitReadsLargerPages() {
        assertThat(DynamoDbRequestQueue.headsPageItems(10)).isEqualTo(100);
        assertThat(DynamoDbRequestQueue.headsPageItems(250)).isEqualTo(250);
        assertThat(DynamoDbRequestQueue.headsQueriesOfShard(new long[] {120, 100}, 250)).isEqualTo(1);
    }
}
