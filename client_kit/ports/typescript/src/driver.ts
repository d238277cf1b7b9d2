// The client kit's driver for this port: the protocol of docs/ports.md over stdin/stdout.
//   together-rl-client-kit --driver "node client_kit/ports/typescript/dist/driver.js"
import { createInterface } from "node:readline";
import { APIError, RLClient, type ForwardBackwardBody } from "./client.js";

interface Request {
  id: number;
  op: string;
  path?: Record<string, string>;
  body?: unknown;
  idempotency_key?: string;
}

const SUPPORTS = [
  "caller-idempotency-key",
  "download",
  "forwardBackward",
  "getTrainingSession",
  "idempotency-key",
  "polling",
  "retries",
  "retry-after",
  "retry-after-http-date",
  "retry-after-ms",
  "upload",
];

const client = new RLClient(process.env.TOGETHER_BASE_URL ?? "", process.env.TOGETHER_API_KEY ?? "");
const write = (value: unknown) => process.stdout.write(JSON.stringify(value) + "\n");

async function perform(request: Request): Promise<unknown> {
  const sessionId = request.path?.session_id ?? "";
  if (request.op === "forwardBackward") {
    return client.forwardBackward(sessionId, request.body as ForwardBackwardBody, request.idempotency_key);
  }
  if (request.op === "getTrainingSession") return client.getSession(sessionId);
  throw new APIError(null, `the TypeScript port does not perform ${request.op}`);
}

write({ driver: "typescript port (openapi-fetch)", supports: SUPPORTS });
const lines = createInterface({ input: process.stdin });
let queue = Promise.resolve();
lines.on("line", (line) => {
  if (!line.trim()) return;
  const request = JSON.parse(line) as Request;
  queue = queue.then(async () => {
    try {
      write({ id: request.id, ok: true, result: await perform(request) });
    } catch (error) {
      const status = error instanceof APIError ? error.status : null;
      write({ id: request.id, ok: false, error: { status, message: String(error instanceof Error ? error.message : error) } });
    }
  });
});
