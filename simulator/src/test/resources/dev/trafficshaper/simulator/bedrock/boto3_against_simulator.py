"""boto3 against the Bedrock simulator: Converse with toolConfig, an image and a cachePoint (twice:
cache write, then read), InvokeModel with an Anthropic body (token headers), and a
ThrottlingException over quota. Prints one JSON line with what it saw."""
import json
import struct
import sys
import zlib

import boto3
import botocore.config


def png(width, height):
    raw = b"".join(b"\x00" + b"\x00" * (3 * width) for _ in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


endpoint = sys.argv[1]
client = boto3.client("bedrock-runtime", endpoint_url=endpoint, region_name="us-east-1",
                      aws_access_key_id="test", aws_secret_access_key="test",
                      config=botocore.config.Config(retries={"max_attempts": 1, "mode": "standard"}))
system = [{"text": "You are a weather assistant. " * 30}, {"cachePoint": {"type": "default"}}]
tools = {"tools": [{"toolSpec": {"name": "get_weather", "inputSchema": {"json": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}}]}


def converse(question):
    return client.converse(
        modelId="amazon.nova-lite-v1:0", system=system, toolConfig=tools,
        messages=[{"role": "user", "content": [
            {"text": question},
            {"image": {"format": "png", "source": {"bytes": png(300, 250)}}}]}],
        inferenceConfig={"maxTokens": 200})


first = converse("What is the weather where this photo was taken? #sim:use-tool")
second = converse("And tomorrow?")
tool_use = first["output"]["message"]["content"][0]["toolUse"]

invoked = client.invoke_model(modelId="anthropic.claude-haiku-v1:0", body=json.dumps({
    "anthropic_version": "bedrock-2023-05-31", "max_tokens": 100,
    "messages": [{"role": "user", "content": "Hello from boto3"}]}))
headers = invoked["ResponseMetadata"]["HTTPHeaders"]
native = json.loads(invoked["body"].read())

throttle = {}
try:
    for _ in range(5):
        client.converse(modelId="amazon.nova-micro-v1:0",
                        messages=[{"role": "user", "content": [{"text": "word " * 80}]}],
                        inferenceConfig={"maxTokens": 200})
except client.exceptions.ThrottlingException as e:
    throttle = {"error": e.response["Error"]["Code"], "status": e.response["ResponseMetadata"]["HTTPStatusCode"]}

print(json.dumps({
    "converse": {"stopReason": first["stopReason"], "toolName": tool_use["name"],
                 "cacheWrite": first["usage"].get("cacheWriteInputTokens", 0)},
    "converseAgain": {"cacheRead": second["usage"].get("cacheReadInputTokens", 0)},
    "invoke": {"inputTokensHeader": int(headers["x-amzn-bedrock-input-token-count"]),
               "outputTokensHeader": int(headers["x-amzn-bedrock-output-token-count"]),
               "stopReason": native["stop_reason"]},
    "throttle": throttle}))
