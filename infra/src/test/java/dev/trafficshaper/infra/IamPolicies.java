package dev.trafficshaper.infra;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.assertions.Template;

/** The statements of every inline IAM policy in a template, flattened for assertions. */
final class IamPolicies {

    private final List<Statement> statements;

    private IamPolicies(List<Statement> statements) {
        this.statements = statements;
    }

    @SuppressWarnings("unchecked")
    static IamPolicies of(Template template) {
        List<Statement> statements = new ArrayList<>();
        template.findResources("AWS::IAM::Policy").forEach((id, policy) -> {
            Map<String, Object> properties = (Map<String, Object>) policy.get("Properties");
            Map<String, Object> document = (Map<String, Object>) properties.get("PolicyDocument");
            for (Object raw : (List<Object>) document.get("Statement")) {
                Map<String, Object> statement = (Map<String, Object>) raw;
                statements.add(new Statement(id, asList(statement.get("Action")).stream().map(Object::toString).toList(),
                        asList(statement.get("Resource")),
                        (Map<String, Object>) statement.getOrDefault("Condition", Map.of())));
            }
        });
        return new IamPolicies(statements);
    }

    private static List<Object> asList(Object value) {
        return value instanceof List<?> list ? List.copyOf(list) : List.of(value);
    }

    List<Statement> all() {
        return statements;
    }

    List<Statement> statementsOf(String policyPrefix) {
        return statements.stream().filter(statement -> statement.policy().startsWith(policyPrefix)).toList();
    }

    List<Statement> statementsWithAction(String action) {
        return statements.stream().filter(statement -> statement.actions().contains(action)).toList();
    }

    /**
     * One statement: the logical id of its policy, its actions, its resources (strings or intrinsics)
     * and its condition (empty when none).
     */
    record Statement(String policy, List<String> actions, List<Object> resources, Map<String, Object> condition) {
    }
}
