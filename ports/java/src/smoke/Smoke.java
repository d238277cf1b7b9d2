// The smoke run of the Java port: the core flow through the client OpenAPI Generator's `java`
// generator (library `native`) makes from spec/openapi.yaml (generated/, at build time, never
// edited), against the emulator or any server of the spec:
//
//   TOGETHER_BASE_URL=http://127.0.0.1:8765 TOGETHER_API_KEY=test-key \
//       java -cp .build/classes:$CLASSPATH smoke.Smoke BODY.json
//
// Resources, a session, a forward-backward with an Idempotency-Key (sent again with the same key
// when the connection drops), polled to COMPLETED through any other status, known or not, then
// the same key again, which must return the same operation. One JSON line of what it saw; exit
// code 1 when the flow breaks.
package smoke;

import ai.together.rl.client.ApiClient;
import ai.together.rl.client.ApiException;
import ai.together.rl.client.api.RlApi;
import ai.together.rl.client.model.ForwardBackwardBody;
import ai.together.rl.client.model.ForwardBackwardOperation;
import ai.together.rl.client.model.ModelResources;
import ai.together.rl.client.model.ModelResourcesCreate;
import ai.together.rl.client.model.Session;
import ai.together.rl.client.model.SessionCreate;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

public final class Smoke {
  private static final String COMPLETED = "TRAINING_OPERATION_STATUS_COMPLETED";
  private static final String FAILED = "TRAINING_OPERATION_STATUS_FAILED";

  public static void main(String[] args) throws Exception {
    if (args.length != 1) throw new IllegalArgumentException("usage: Smoke FORWARD_BACKWARD_BODY.json");
    ApiClient client = new ApiClient();
    // TOGETHER_BASE_URL is a server root: the path of the spec's server URL goes after it.
    String root = System.getenv().getOrDefault("TOGETHER_BASE_URL", "").replaceAll("/$", "");
    client.updateBaseUri(root + URI.create(client.getBaseUri()).getPath());
    // The native library does not apply the spec's bearer scheme: the header is set here.
    String bearer = "Bearer " + System.getenv().getOrDefault("TOGETHER_API_KEY", "");
    client.setRequestInterceptor(request -> request.header("Authorization", bearer));
    RlApi api = new RlApi(client);

    ModelResources resources = api.createModelResources(new ModelResourcesCreate().baseModel("emulator/tiny-1k"));
    Session session = api.startTrainingSession(new SessionCreate().modelResourcesId(resources.getId()));
    ForwardBackwardBody body = client.getObjectMapper()
        .readValue(Files.readString(Path.of(args[0])), ForwardBackwardBody.class);

    String key = UUID.randomUUID().toString();
    int[] attempts = {0};
    ForwardBackwardOperation operation = submit(api, session.getId(), key, body, attempts);
    int submitAttempts = attempts[0];
    List<String> statuses = new ArrayList<>();
    while (statuses.size() < 500) {
      String status = String.valueOf(operation.getStatus());
      statuses.add(status);
      if (status.equals(COMPLETED) || status.equals(FAILED)) break;
      Thread.sleep(20); // any other status, known or not: not done yet
      operation = api.getForwardBackwardOperation(session.getId(), operation.getId());
    }
    ForwardBackwardOperation replayed = submit(api, session.getId(), key, body, attempts);

    Map<String, Object> report = new LinkedHashMap<>();
    report.put("port", "java");
    report.put("operation_id", operation.getId());
    report.put("replayed_operation_id", replayed.getId());
    report.put("submit_attempts", submitAttempts);
    report.put("statuses", statuses);
    report.put("loss", operation.getOutput() == null ? null : operation.getOutput().getLoss());
    System.out.println(client.getObjectMapper().writeValueAsString(report));
    boolean held = statuses.get(statuses.size() - 1).equals(COMPLETED) && replayed.getId().equals(operation.getId());
    System.exit(held ? 0 : 1);
  }

  private static ForwardBackwardOperation submit(
      RlApi api, String sessionId, String key, ForwardBackwardBody body, int[] attempts) throws Exception {
    for (;;) {
      attempts[0]++;
      try {
        return api.forwardBackward(sessionId, key, body);
      } catch (ApiException error) {
        // code 0: no answer (the connection dropped). Send the same key again.
        if (error.getCode() != 0 || attempts[0] >= 5) throw error;
        Thread.sleep(100);
      }
    }
  }
}
