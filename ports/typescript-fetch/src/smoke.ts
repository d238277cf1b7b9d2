// The smoke run of the typescript-fetch port: the core flow through the client OpenAPI
// Generator makes from spec/openapi.yaml (generated/, at build time, never edited), against the
// emulator or any server of the spec:
//
//   TOGETHER_BASE_URL=http://127.0.0.1:8765 TOGETHER_API_KEY=test-key \
//       node dist/src/smoke.js ../../spec/examples/valid/forward_backward.cross_entropy.json
//
// Resources, a session, a forward-backward with an Idempotency-Key (sent again with the same key
// when the connection drops), polled to COMPLETED through any other status, known or not, then
// the same key again, which must return the same operation. One JSON line of what it saw; exit
// code 1 when the flow breaks.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import {
  BASE_PATH,
  Configuration,
  FetchError,
  ForwardBackwardBodyFromJSON,
  type ForwardBackwardOperation,
  RlApi,
} from "../generated";

const COMPLETED = "TRAINING_OPERATION_STATUS_COMPLETED";
const FAILED = "TRAINING_OPERATION_STATUS_FAILED";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<number> {
  const bodyFile = process.argv[2];
  if (!bodyFile) throw new Error("usage: smoke FORWARD_BACKWARD_BODY.json");
  // TOGETHER_BASE_URL is a server root: the path of the spec's server URL goes after it.
  const root = (process.env.TOGETHER_BASE_URL ?? "").replace(/\/$/, "");
  const api = new RlApi(
    new Configuration({
      basePath: root + new URL(BASE_PATH).pathname,
      headers: { Authorization: `Bearer ${process.env.TOGETHER_API_KEY ?? ""}` },
    }),
  );

  const resources = await api.createModelResources({ modelResourcesCreate: { base_model: "emulator/tiny-1k" } });
  const session = await api.startTrainingSession({ sessionCreate: { model_resources_id: resources.id } });
  const body = ForwardBackwardBodyFromJSON(JSON.parse(readFileSync(bodyFile, "utf8")));

  const key = randomUUID();
  let attempts = 0;
  const submit = async (): Promise<ForwardBackwardOperation> => {
    for (;;) {
      attempts++;
      try {
        return await api.forwardBackward({ sessionId: session.id, idempotencyKey: key, forwardBackwardBody: body });
      } catch (error) {
        if (!(error instanceof FetchError) || attempts >= 5) throw error; // an answer, or too many lost
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
    operation = await api.getForwardBackwardOperation({ sessionId: session.id, operationId: operation.id });
  }
  const replayed = await submit();
  const report = {
    port: "typescript-fetch",
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
