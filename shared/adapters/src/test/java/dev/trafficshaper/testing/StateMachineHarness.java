package dev.trafficshaper.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import software.amazon.awssdk.core.SdkField;
import software.amazon.awssdk.core.SdkPojo;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.DescribeExecutionResponse;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;
import software.amazon.awssdk.services.sfn.model.HistoryEvent;

/**
 * Runs one of this repository's state machines ({@code statemachines/*.asl.json}) in the moto
 * server, its Lambda functions played by Java handlers in this JVM.
 *
 * <pre>{@code
 * StateMachineHarness harness = StateMachineHarness.builder()            // request-lifecycle.asl.json
 *         .function("BudgetManagerFunctionArn", payload -> {
 *             tokens.add(payload.get("taskToken").asText());                // the processor's job, later
 *             return null;
 *         })
 *         .function("FinalizerFunctionArn", finalizer::handle)
 *         .build();                                                     // creates the state machine
 * StateMachineHarness.Execution execution = harness.start("request-1", input);
 * harness.sfn().sendTaskSuccess(b -> b.taskToken(tokens.take()).output("{}"));
 * StateMachineHarness.Result result = execution.awaitEnd(Duration.ofSeconds(30));
 * }</pre>
 *
 * <p><b>How the handlers run.</b> moto's interpreter runs every Lambda task, a plain function ARN
 * as well as {@code arn:aws:states:::lambda:invoke[.waitForTaskToken]}, by calling the Lambda
 * Invoke API from the execution's thread; left alone, moto's Docker-less Lambda echoes the payload.
 * {@code moto_server.py} sends those calls to the endpoint named in moto's {@code lambda} config
 * instead, and this class serves the Invoke API there on a loopback port: each invocation's payload
 * goes to the handler registered for the function ARN, while the execution waits, exactly as Step
 * Functions waits for a Lambda function. The harness chooses the ARNs and substitutes them for the
 * definition's {@code ${...FunctionArn}} placeholders. So:
 * <ul>
 *   <li>a plain task's handler returns the function's result (null is JSON null), or throws: the
 *       invocation then ends in a function error whose {@code errorType} is the exception's class
 *       name, as the Java Lambda runtime reports it, and that becomes the task's error name
 *       (Retry/Catch see it; {@code States.TaskFailed} matches it) with the error payload as cause;</li>
 *   <li>a {@code .waitForTaskToken} task's handler receives the {@code Payload}, task token included;
 *       what it returns is ignored, as on AWS. The task ends when someone (the test, or the code under
 *       test) calls SendTaskSuccess or SendTaskFailure with the token, or at its TimeoutSeconds.</li>
 * </ul>
 * Handlers run on the endpoint's own threads, concurrently with the test and with each other, and
 * may call moto themselves (DynamoDB, SendTaskSuccess): the Invoke call comes from the execution's
 * thread, not from the single thread that serves moto's requests. An {@code AssertionError} thrown
 * in a handler becomes a function error like any exception: the execution sees it, the test does not.
 *
 * <p>Why not read {@code TaskScheduled} events from the history and answer with the task token: a
 * plain Lambda task has no token, so moto would have to be changed to make such tasks wait. Serving
 * the Invoke API leaves moto's task code (Lambda error mapping, {@code LambdaFunction*} history
 * events, Retry and Catch) as it is. The history is read only to wait for the end and to report.
 *
 * <p>Needs moto ({@link AwsEmulator#moto()}, even where {@link AwsEmulator#shared()} picks LocalStack):
 * LocalStack would invoke real Lambda functions. Time is real: TimeoutSeconds and Retry intervals
 * elapse on the wall clock, so give a small {@code admitTimeoutSeconds} in the execution input (the
 * Admit step's {@code TimeoutSecondsPath}) where a test waits for the timeout, and expect a handler that keeps failing to hold its execution for its whole Retry
 * schedule (about a minute for the Finalizer: 2 + 4 + 8 + 16 + 32 s).
 */
public final class StateMachineHarness {

    /** The definition {@link #builder()} uses unless told otherwise. */
    public static final String REQUEST_LIFECYCLE = "request-lifecycle.asl.json";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Za-z0-9]+)}");
    private static final Pattern LAMBDA_ARN = Pattern.compile("arn:[a-z-]+:lambda:.*");
    private static final String ACCOUNT = "123456789012";
    private static final Duration POLL = Duration.ofMillis(50);

    private final SfnClient sfn;
    private final String stateMachineArn;
    private final Map<String, String> functionArns;

    private StateMachineHarness(SfnClient sfn, String stateMachineArn, Map<String, String> functionArns) {
        this.sfn = sfn;
        this.stateMachineArn = stateMachineArn;
        this.functionArns = functionArns;
    }

    /** A harness for {@value #REQUEST_LIFECYCLE} on {@link AwsEmulator#moto()}. */
    public static Builder builder() {
        return new Builder(AwsEmulator.moto());
    }

    public SfnClient sfn() {
        return sfn;
    }

    public String stateMachineArn() {
        return stateMachineArn;
    }

    /** The function ARN the harness substituted for {@code placeholder}, e.g. "FinalizerFunctionArn". */
    public String functionArn(String placeholder) {
        String arn = functionArns.get(placeholder);
        if (arn == null) {
            throw new IllegalArgumentException("no function registered for ${" + placeholder + "}");
        }
        return arn;
    }

    /** Starts an execution; the name must be new for this state machine. */
    public Execution start(String name, JsonNode input) {
        String arn = sfn.startExecution(b -> b.stateMachineArn(stateMachineArn).name(name).input(input.toString()))
                .executionArn();
        return new Execution(arn);
    }

    /** An execution of this state machine started elsewhere, e.g. by the code under test. */
    public Execution execution(String executionArn) {
        return new Execution(executionArn);
    }

    /** One execution of the harness's state machine. */
    public final class Execution {

        private final String arn;

        private Execution(String arn) {
            this.arn = arn;
        }

        public String arn() {
            return arn;
        }

        /**
         * Waits until the execution is no longer RUNNING, polling; fails with the history so far when
         * it still runs after {@code timeout}.
         */
        public Result awaitEnd(Duration timeout) {
            long deadline = System.nanoTime() + timeout.toNanos();
            DescribeExecutionResponse described = sfn.describeExecution(b -> b.executionArn(arn));
            while (described.status() == ExecutionStatus.RUNNING) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("Execution " + arn + " still RUNNING after " + timeout.toMillis()
                            + " ms. History so far:\n" + Result.describe(history()));
                }
                LockSupport.parkNanos(POLL.toNanos());
                described = sfn.describeExecution(b -> b.executionArn(arn));
            }
            return new Result(described.status(), readJson(described.output()), described.error(),
                    described.cause(), history());
        }

        /** Every history event so far, oldest first. */
        public List<HistoryEvent> history() {
            List<HistoryEvent> events = new ArrayList<>();
            sfn.getExecutionHistoryPaginator(b -> b.executionArn(arn)).events().forEach(events::add);
            return List.copyOf(events);
        }
    }

    /** How an execution ended: status, output (null unless it succeeded), error and cause, history. */
    public record Result(ExecutionStatus status, JsonNode output, String error, String cause,
                         List<HistoryEvent> history) {

        /** Names of the states entered, in order. */
        public List<String> statesEntered() {
            return history.stream()
                    .filter(event -> event.stateEnteredEventDetails() != null)
                    .map(event -> event.stateEnteredEventDetails().name())
                    .collect(Collectors.toList());
        }

        @Override
        public String toString() {
            return status + (error == null ? "" : " " + error + ": " + cause) + "\n" + describe(history);
        }

        static String describe(List<HistoryEvent> history) {
            return history.stream().map(event -> "  " + abbreviate(describe(event), 400))
                    .collect(Collectors.joining("\n"));
        }

        /** "9 LambdaFunctionScheduled resource=arn:... input={...}": the SDK's toString redacts inputs and errors. */
        private static String describe(HistoryEvent event) {
            StringBuilder line = new StringBuilder().append(event.id()).append(' ').append(event.typeAsString());
            for (SdkField<?> field : event.sdkFields()) {
                if (field.getValueOrDefault(event) instanceof SdkPojo details) {
                    for (SdkField<?> detail : details.sdkFields()) {
                        Object value = detail.getValueOrDefault(details);
                        if (value instanceof String || value instanceof Number) {
                            line.append(' ').append(detail.memberName()).append('=').append(value);
                        }
                    }
                }
            }
            return line.toString();
        }

        private static String abbreviate(String text, int max) {
            return text.length() <= max ? text : text.substring(0, max) + "...";
        }
    }

    /** Chooses the definition, its substitutions and the handler of each Lambda function it names. */
    public static final class Builder {

        private final AwsEmulator moto;
        private String definition = REQUEST_LIFECYCLE;
        private final Map<String, String> substitutions = new LinkedHashMap<>();
        private final Map<String, Function<JsonNode, JsonNode>> handlers = new LinkedHashMap<>();

        private Builder(AwsEmulator moto) {
            this.moto = moto;
        }

        /** A file in {@code statemachines/}; default {@value #REQUEST_LIFECYCLE}. */
        public Builder definition(String fileName) {
            this.definition = fileName;
            return this;
        }

        /**
         * A value for {@code ${placeholder}}, written as is (a number stays a number). Placeholders
         * without one take theirs from {@code statemachines/sample-substitutions.json}.
         */
        public Builder substitution(String placeholder, Object value) {
            substitutions.put(placeholder, String.valueOf(value));
            return this;
        }

        /**
         * Plays the Lambda function named by {@code ${placeholder}} with {@code handler}: the harness
         * substitutes an ARN of its own and routes that function's invocations to the handler.
         */
        public Builder function(String placeholder, Function<JsonNode, JsonNode> handler) {
            handlers.put(placeholder, handler);
            return this;
        }

        /**
         * Renders the definition and creates the state machine. Fails on a placeholder without a
         * value, a substitution or function the definition does not name, and a Lambda ARN left
         * without a handler.
         */
        public StateMachineHarness build() {
            Path directory = statemachinesDirectory();
            String suffix = UUID.randomUUID().toString().substring(0, 8);
            Map<String, String> values = new LinkedHashMap<>(sampleSubstitutions(directory));
            values.putAll(substitutions);
            Map<String, String> functionArns = new LinkedHashMap<>();
            handlers.keySet().forEach(placeholder -> functionArns.put(placeholder, functionArn(placeholder, suffix)));
            values.putAll(functionArns);

            String source = read(directory.resolve(definition));
            Set<String> named = new LinkedHashSet<>();
            String rendered = PLACEHOLDER.matcher(source).replaceAll(match -> {
                named.add(match.group(1));
                return Matcher.quoteReplacement(values.getOrDefault(match.group(1), match.group()));
            });
            check(named, values, functionArns);

            LambdaInvokeApi lambda = LambdaInvokeApi.on(moto);
            handlers.forEach((placeholder, handler) -> lambda.register(functionArns.get(placeholder), handler));
            SfnClient sfn = moto.configure(SfnClient.builder()).build();
            String name = definition.replace(".asl.json", "") + "-" + suffix;
            String arn = sfn.createStateMachine(b -> b.name(name).definition(rendered)
                    .roleArn("arn:aws:iam::" + ACCOUNT + ":role/" + name)).stateMachineArn();
            return new StateMachineHarness(sfn, arn, Map.copyOf(functionArns));
        }

        private void check(Set<String> named, Map<String, String> values, Map<String, String> functionArns) {
            List<String> problems = new ArrayList<>();
            named.stream().filter(p -> !values.containsKey(p))
                    .forEach(p -> problems.add("no value for ${" + p + "}"));
            substitutions.keySet().stream().filter(p -> !named.contains(p))
                    .forEach(p -> problems.add("substitution " + p + " is not a placeholder of " + definition));
            handlers.keySet().stream().filter(p -> !named.contains(p))
                    .forEach(p -> problems.add("function " + p + " is not a placeholder of " + definition));
            named.stream()
                    .filter(p -> values.containsKey(p) && LAMBDA_ARN.matcher(values.get(p)).matches())
                    .filter(p -> !functionArns.containsKey(p))
                    .forEach(p -> problems.add("no handler for the Lambda function ${" + p
                            + "}: register one with function(\"" + p + "\", handler)"));
            if (!problems.isEmpty()) {
                throw new IllegalStateException(definition + ": " + String.join("; ", problems));
            }
        }

        /**
         * "BudgetManagerFunctionArn" becomes
         * {@code arn:aws:lambda:<region>:<account>:function:budget-manager-<suffix>:live}.
         */
        private String functionArn(String placeholder, String suffix) {
            String base = placeholder.replaceFirst("FunctionArn$", "")
                    .replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
            return "arn:aws:lambda:" + moto.region().id() + ":" + ACCOUNT + ":function:" + base + "-" + suffix
                    + ":live";
        }
    }

    /**
     * The Lambda Invoke API ({@code POST /2015-03-31/functions/{name}/invocations}) for every harness
     * of this JVM, keyed by the function ARN as the state machine names it; one per JVM because moto's
     * config names one endpoint.
     */
    private static final class LambdaInvokeApi {

        private static final Pattern INVOKE = Pattern.compile("/2015-03-31/functions/([^/]+)/invocations");
        private static LambdaInvokeApi running;

        private final HttpServer server;
        private final Map<String, Function<JsonNode, JsonNode>> functions = new ConcurrentHashMap<>();

        private LambdaInvokeApi(HttpServer server) {
            this.server = server;
        }

        /** Starts the endpoint on first use and (again, on every call) points moto's Lambda tasks at it. */
        static synchronized LambdaInvokeApi on(AwsEmulator moto) {
            if (running == null) {
                try {
                    InetSocketAddress loopback = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
                    HttpServer server = HttpServer.create(loopback, 0);
                    server.setExecutor(Executors.newCachedThreadPool(task -> {
                        Thread thread = new Thread(task, "lambda-invoke");
                        thread.setDaemon(true);
                        return thread;
                    }));
                    running = new LambdaInvokeApi(server);
                    server.createContext("/", running::serve);
                    server.start();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            String endpoint = "http://127.0.0.1:" + running.server.getAddress().getPort();
            moto.configureMoto("{\"stepfunctions\": {\"execute_state_machine\": true}, "
                    + "\"lambda\": {\"use_docker\": false, \"invoke_endpoint\": \"" + endpoint + "\"}}");
            return running;
        }

        void register(String functionArn, Function<JsonNode, JsonNode> handler) {
            functions.put(functionArn, handler);
        }

        private void serve(HttpExchange exchange) throws IOException {
            try {
                Matcher path = INVOKE.matcher(exchange.getRequestURI().getRawPath());
                if (!"POST".equals(exchange.getRequestMethod()) || !path.matches()) {
                    respond(exchange, 404, Map.of("x-amzn-ErrorType", "UnknownOperationException"),
                            error(exchange.getRequestURI().toString()));
                    return;
                }
                String function = URLDecoder.decode(path.group(1), StandardCharsets.UTF_8) + qualifier(exchange);
                Function<JsonNode, JsonNode> handler = functions.get(function);
                if (handler == null) {
                    respond(exchange, 404, Map.of("x-amzn-ErrorType", "ResourceNotFoundException"),
                            error("Function not found: " + function));
                    return;
                }
                byte[] body = exchange.getRequestBody().readAllBytes();
                JsonNode payload = body.length == 0 ? NullNode.getInstance() : JSON.readTree(body);
                JsonNode result;
                try {
                    result = handler.apply(payload);
                } catch (RuntimeException | AssertionError e) {
                    ObjectNode failure = JSON.createObjectNode()
                            .put("errorMessage", e.getMessage())
                            .put("errorType", e.getClass().getName());
                    respond(exchange, 200, Map.of("X-Amz-Function-Error", "Unhandled"), failure);
                    return;
                }
                respond(exchange, 200, Map.of(), result == null ? NullNode.getInstance() : result);
            } finally {
                exchange.close();
            }
        }

        private static String qualifier(HttpExchange exchange) {
            String query = exchange.getRequestURI().getRawQuery();
            if (query == null) {
                return "";
            }
            for (String parameter : query.split("&")) {
                if (parameter.startsWith("Qualifier=")) {
                    return ":" + URLDecoder.decode(parameter.substring("Qualifier=".length()), StandardCharsets.UTF_8);
                }
            }
            return "";
        }

        private static ObjectNode error(String message) {
            return JSON.createObjectNode().put("Type", "User").put("message", message);
        }

        private static void respond(HttpExchange exchange, int status, Map<String, String> headers, JsonNode body)
                throws IOException {
            byte[] bytes = JSON.writeValueAsBytes(body);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            headers.forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
            exchange.sendResponseHeaders(status, bytes.length);
            exchange.getResponseBody().write(bytes);
        }
    }

    private static JsonNode readJson(String json) {
        if (json == null) {
            return null;
        }
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Map<String, String> sampleSubstitutions(Path directory) {
        Path samples = directory.resolve("sample-substitutions.json");
        Map<String, String> values = new LinkedHashMap<>();
        if (Files.exists(samples)) {
            readJson(read(samples)).properties()
                    .forEach(field -> values.put(field.getKey(), field.getValue().asText()));
        }
        return values;
    }

    /** {@code statemachines/} of this repository, found from the working directory upwards. */
    private static Path statemachinesDirectory() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("statemachines");
            if (Files.isDirectory(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("no statemachines/ directory above " + Path.of("").toAbsolutePath());
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
