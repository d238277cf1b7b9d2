// The smoke run of this port's types (openapi-typescript, src/api.d.ts generated from
// spec/openapi.yaml) with plain openapi-fetch calls: the core flow against the emulator or any
// server of the spec:
//
//   TOGETHER_BASE_URL=http://127.0.0.1:8765 TOGETHER_API_KEY=test-key \
//       node dist/smoke.js ../../../spec/examples/valid/forward_backward.cross_entropy.json
//
// Resources, a session, a forward-backward with an Idempotency-Key (sent again with the same key
// when the connection drops), polled to COMPLETED through any other status, known or not, then
// the same key again, which must return the same operation. One JSON line of what it saw; exit
// code 1 when the flow breaks.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import createClient from "openapi-fetch";
import type { components, paths } from "./api.js";

type Operation = components["schemas"]["ForwardBackwardOperation"];
const COMPLETED = "TRAINING_OPERATION_STATUS_COMPLETED";
const FAILED = "TRAINING_OPERATION_STATUS_FAILED";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function ok<T>(what: string, answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.data === undefined) throw new Error(`${what}: ${answer.response.status} ${JSON.stringify(answer.error)}`);
  return answer.data;
}

async function main(): Promise<number> {
  const bodyFile = process.argv[2];
  if (!bodyFile) throw new Error("usage: smoke FORWARD_BACKWARD_BODY.json");
  const api = createClient<paths>({
    // The paths of api.d.ts follow the spec's server URL, whose path (/v1) goes after the root.
    baseUrl: `${(process.env.TOGETHER_BASE_URL ?? "").replace(/\/$/, "")}/v1`,
    headers: { Authorization: `Bearer ${process.env.TOGETHER_API_KEY ?? ""}` },
  });
  const resources = ok(
    "createModelResources",
    await api.POST("/rl/model-resources", { body: { base_model: "emulator/tiny-1k" } }),
  );
  const session = ok(
    "startTrainingSession",
    await api.POST("/rl/training-sessions", { body: { model_resources_id: resources.id } }),
  );
  const body = JSON.parse(readFileSync(bodyFile, "utf8")) as components["schemas"]["ForwardBackwardBody"];
  const path = { session_id: session.id };
  const key = randomUUID();
  let attempts = 0;
  const submit = async (): Promise<Operation> => {
    for (;;) {
      attempts++;
      try {
        const answer = await api.POST("/rl/training-sessions/{session_id}/operations/forward-backward", {
          params: { path, header: { "Idempotency-Key": key } },
          body,
        });
        return ok("forwardBackward", answer);
      } catch (error) {
        if (!(error instanceof TypeError) || attempts >= 5) throw error; // an answer, or too many lost
        await sleep(100); // no answer: the same key again
      }
    }
  };
  let operation = await submit();
  const submitAttempts = attempts;
  const statuses: string[] = [];
  while (statuses.length < 500) {
    statuses.push(operation.status);
    if (operation.status === COMPLETED || operation.status === FAILED) break;
    await sleep(20); // any other status, known or not: not done yet
    const id = operation.id;
    operation = ok(
      "getForwardBackwardOperation",
      await api.GET("/rl/training-sessions/{session_id}/operations/forward-backward/{operation_id}", {
        params: { path: { ...path, operation_id: id } },
      }),
    );
  }
  const replayed = await submit();
  const report = {
    port: "typescript (openapi-typescript + openapi-fetch)",
    operation_id: operation.id,
    replayed_operation_id: replayed.id,
    submit_attempts: submitAttempts,
    statuses,
    loss: operation.output?.loss,
  };
  console.log(JSON.stringify(report));
  return statuses[statuses.length - 1] === COMPLETED && replayed.id === operation.id ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error("smoke:", error);
    process.exit(1);
  },
);
