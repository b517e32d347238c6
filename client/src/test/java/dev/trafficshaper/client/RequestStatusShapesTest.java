package dev.trafficshaper.client;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RequestStatusShapesTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            converse  | {"output":{"message":{"content":[{"text":"It is "},{"text":"sunny"}]}}}
            anthropic | {"content":[{"type":"text","text":"It is sunny"}],"stop_reason":"end_turn"}
            chat      | {"choices":[{"message":{"role":"assistant","content":"It is sunny"}}]}
            responses | {"output":[{"type":"message","content":[{"type":"output_text","text":"It is sunny"}]}]}
            llama     | {"generation":"It is sunny"}
            titan     | {"results":[{"outputText":"It is sunny"}]}
            """)
    void theAnswersTextIsReadFromEveryShape(String shape, String response) {
        RequestStatus status = RequestStatus.fromResponse("r", 200, null,
                "{\"requestId\":\"r\",\"status\":\"SUCCEEDED\",\"response\":" + response + "}");
        assertThat(status.outputText()).contains("It is sunny");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            converse  | {"output":{"message":{"content":[{"toolUse":{"toolUseId":"t1","name":"get_weather","input":{"city":"Paris"}}}]}}}
            anthropic | {"content":[{"type":"tool_use","id":"t1","name":"get_weather","input":{"city":"Paris"}}]}
            chat      | {"choices":[{"message":{"tool_calls":[{"id":"t1","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"}}]}}]}
            responses | {"output":[{"type":"function_call","call_id":"t1","name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"}]}
            """)
    void toolCallsAreReadFromEveryShape(String shape, String response) {
        RequestStatus status = RequestStatus.fromResponse("r", 200, null,
                "{\"requestId\":\"r\",\"status\":\"SUCCEEDED\",\"response\":" + response + "}");
        assertThat(status.toolUses()).singleElement().satisfies(use -> {
            assertThat(use.id()).isEqualTo("t1");
            assertThat(use.name()).isEqualTo("get_weather");
            assertThat(use.input().path("city").asText()).isEqualTo("Paris");
        });
    }
}
