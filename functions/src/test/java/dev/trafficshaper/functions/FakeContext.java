package dev.trafficshaper.functions;

import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/** A Lambda context for handlers run in process: a fresh request id and a fixed time budget. */
final class FakeContext implements Context {

    private final String functionName;
    private final String requestId = UUID.randomUUID().toString();
    private final long deadlineMillis;

    FakeContext(String functionName, long budgetMillis) {
        this.functionName = functionName;
        this.deadlineMillis = System.currentTimeMillis() + budgetMillis;
    }

    @Override public String getAwsRequestId() { return requestId; }
    @Override public String getLogGroupName() { return "/aws/lambda/" + functionName; }
    @Override public String getLogStreamName() { return "local"; }
    @Override public String getFunctionName() { return functionName; }
    @Override public String getFunctionVersion() { return "1"; }
    @Override public String getInvokedFunctionArn() {
        return "arn:aws:lambda:us-east-1:123456789012:function:" + functionName + ":live";
    }
    @Override public CognitoIdentity getIdentity() { return null; }
    @Override public ClientContext getClientContext() { return null; }
    @Override public int getRemainingTimeInMillis() {
        return (int) Math.max(0, deadlineMillis - System.currentTimeMillis());
    }
    @Override public int getMemoryLimitInMB() { return 1024; }
    @Override public LambdaLogger getLogger() {
        return new LambdaLogger() {
            @Override public void log(String message) { System.out.println(message); }
            @Override public void log(byte[] message) { System.out.println(new String(message, StandardCharsets.UTF_8)); }
        };
    }
}
