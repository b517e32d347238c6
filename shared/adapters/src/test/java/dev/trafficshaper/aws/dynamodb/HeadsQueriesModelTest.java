package dev.trafficshaper.aws.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The documented call model of a heads read (docs/persistence.md), page by page, at 50 per
 * tenant: pages of 75 items.
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
        // the page ends 15 items into the third flow, which wants 50: the next page goes on inside it
        assertThat(DynamoDbRequestQueue.headsQueriesOfShard(new long[] {40, 20, 80}, 50)).isEqualTo(2);
        // a heavy flow starting beyond the margin fills its limit on the next page, then is jumped
        assertThat(DynamoDbRequestQueue.headsQueriesOfShard(new long[] {40, 20, 600, 4}, 50)).isEqualTo(3);
        // 300 items of light flows: four full pages, the last one reports more, and an empty fifth
        long[] light = new long[100];
        Arrays.fill(light, 3);
        assertThat(DynamoDbRequestQueue.headsQueriesOfShard(light, 50)).isEqualTo(5);
    }

    @Test
    void aLargerLimitReadsLargerPages() {
        assertThat(DynamoDbRequestQueue.headsPageItems(10)).isEqualTo(35);
        assertThat(DynamoDbRequestQueue.headsPageItems(250)).isEqualTo(275);
        assertThat(DynamoDbRequestQueue.headsQueriesOfShard(new long[] {120, 100}, 250)).isEqualTo(1);
    }
}
