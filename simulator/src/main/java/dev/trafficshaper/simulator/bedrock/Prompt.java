package dev.trafficshaper.simulator.bedrock;

import java.util.List;

/**
 * What a request feeds the model, reduced to what token counting needs: its text blocks and how
 * many conversation turns they came in.
 */
record Prompt(List<String> blocks, int messages) {

    Prompt {
        blocks = List.copyOf(blocks);
    }
}
