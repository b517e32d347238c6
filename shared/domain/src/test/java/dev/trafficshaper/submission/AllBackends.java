package dev.trafficshaper.submission;

import dev.trafficshaper.model.ModelCatalog;

/** A catalog with one model per backend, and a minimal valid body for each. */
final class AllBackends {

    static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"models": {
              "converse": {"modelId": "amazon.nova-lite-v1:0", "quotas": {"tpm": 1000000}, "maxTokens": 1000,
                           "serviceTiers": ["flex", "priority"], "bulkServiceTier": "flex"},
              "converse-standard": {"modelId": "amazon.nova-micro-v1:0", "quotas": {"tpm": 1000000},
                           "maxTokens": 1000},
              "anthropic": {"modelId": "us.anthropic.claude-haiku-4-5-v1:0", "backend": "invoke-model",
                            "quotas": {"tpm": 1000000}, "maxTokens": 1000, "serviceTiers": ["flex"],
                            "bulkServiceTier": "flex"},
              "nova": {"modelId": "amazon.nova-pro-v1:0", "backend": "invoke-model", "quotas": {"tpm": 1000000},
                       "maxTokens": 1000},
              "llama": {"modelId": "meta.llama3-70b-instruct-v1:0", "backend": "invoke-model",
                        "quotas": {"tpm": 1000000}, "maxTokens": 1000},
              "titan": {"modelId": "amazon.titan-text-express-v1", "backend": "invoke-model",
                        "quotas": {"tpm": 1000000}, "maxTokens": 1000},
              "mistral": {"modelId": "mistral.mistral-large-2407-v1:0", "backend": "invoke-model",
                          "quotas": {"tpm": 1000000}, "maxTokens": 1000},
              "chat": {"modelId": "openai.gpt-5.6", "backend": "mantle-chat-completions",
                       "quotas": {"inputTpm": 1000000, "outputTpm": 100000}, "maxTokens": 1000,
                       "serviceTiers": ["flex"], "bulkServiceTier": "flex", "fallback": "chat-backup"},
              "chat-backup": {"modelId": "openai.gpt-oss-120b", "backend": "mantle-chat-completions",
                       "quotas": {"inputTpm": 1000000, "outputTpm": 100000}, "maxTokens": 1000},
              "responses": {"modelId": "openai.gpt-5.6", "backend": "mantle-responses",
                            "quotas": {"inputTpm": 1000000, "outputTpm": 100000}, "maxTokens": 1000},
              "messages": {"modelId": "anthropic.claude-sonnet-5", "backend": "mantle-messages",
                           "quotas": {"inputTpm": 1000000, "outputTpm": 100000}, "maxTokens": 1000}
            }}""");

    static final String CONVERSE = """
            {"messages":[{"role":"user","content":[{"text":"Hello"}]}],"inferenceConfig":{"maxTokens":100}}""";
    static final String ANTHROPIC = """
            {"anthropic_version":"bedrock-2023-05-31","max_tokens":100,"messages":[{"role":"user","content":"Hello"}]}""";
    static final String NOVA = """
            {"schemaVersion":"messages-v1","messages":[{"role":"user","content":[{"text":"Hello"}]}],\
            "inferenceConfig":{"max_new_tokens":100}}""";
    static final String LLAMA = """
            {"prompt":"Hello","max_gen_len":100}""";
    static final String TITAN = """
            {"inputText":"Hello","textGenerationConfig":{"maxTokenCount":100}}""";
    static final String MISTRAL = """
            {"prompt":"<s>[INST] Hello [/INST]","max_tokens":100}""";
    static final String CHAT = """
            {"messages":[{"role":"user","content":"Hello"}],"max_completion_tokens":100}""";
    static final String RESPONSES = """
            {"input":"Hello","max_output_tokens":100}""";
    static final String MESSAGES = """
            {"max_tokens":100,"messages":[{"role":"user","content":"Hello"}]}""";

    private AllBackends() {
    }
}
