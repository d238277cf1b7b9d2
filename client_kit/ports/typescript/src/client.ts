// A small TypeScript client of the RL training API: types from openapi-typescript (src/api.d.ts,
// generated from spec/openapi.yaml), calls through openapi-fetch. One Idempotency-Key per
// logical call, reused on its retries; retries of dropped connections, cut answers, 408/409/429
// and 5xx, never of other 4xx; Retry-After (seconds or HTTP date) and retry-after-ms honoured;
// polling until COMPLETED or FAILED; bodies over the spec's threshold uploaded; offloaded
// results downloaded.
import createClient from "openapi-fetch";
import type { components, paths } from "./api.js";
import { UPLOAD_THRESHOLD_BYTES } from "./facts.js";

type Schemas = components["schemas"];
export type ForwardBackwardBody = Schemas["ForwardBackwardBody"];
export type ForwardBackwardResult = Schemas["ForwardBackwardResult"];
type OperationStatus = Schemas["OperationStatus"];

const COMPLETED: OperationStatus = "TRAINING_OPERATION_STATUS_COMPLETED";
const FAILED: OperationStatus = "TRAINING_OPERATION_STATUS_FAILED";
const MAX_RETRIES = 8;
const MAX_WAIT_S = 60;
const POLL_START_S = 0.02;
const POLL_MAX_S = 1.0;

export class APIError extends Error {
  constructor(
    readonly status: number | null,
    message: string,
  ) {
    super(message);
  }
}

const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

function retryDelay(attempt: number, headers: Headers | null): number {
  const ms = headers?.get("retry-after-ms");
  if (ms != null && !Number.isNaN(Number(ms))) return Math.min(Number(ms) / 1000, MAX_WAIT_S);
  const after = headers?.get("retry-after");
  if (after != null) {
    const seconds = /^\s*\d+(\.\d+)?\s*$/.test(after) ? Number(after) : (Date.parse(after) - Date.now()) / 1000;
    if (!Number.isNaN(seconds)) return Math.min(Math.max(seconds, 0), MAX_WAIT_S);
  }
  return Math.min(0.25 * 2 ** attempt, 8) * (0.75 + 0.25 * Math.random());
}

function retryable(status: number, headers: Headers): boolean {
  const should = headers.get("x-should-retry");
  if (should === "true") return true;
  if (should === "false") return false;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

export class RLClient {
  private readonly api;

  constructor(
    readonly baseUrl: string,
    private readonly apiKey: string,
  ) {
    this.api = createClient<paths>({
      baseUrl: `${baseUrl.replace(/\/$/, "")}/v1`,
      headers: { Authorization: `Bearer ${apiKey}` },
    });
  }

  /** Send one request, retried; `what` names it in errors. */
  private async retried<T>(what: string, send: () => Promise<Answer<T>>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      let answer: Answer<T>;
      try {
        answer = await send();
      } catch (error) {
        if (attempt >= MAX_RETRIES) throw new APIError(null, `${what}: ${String(error)}`);
        await sleep(retryDelay(attempt, null));
        continue;
      }
      const { response } = answer;
      if (response.ok && answer.data !== undefined) return answer.data;
      if (response.ok) throw new APIError(response.status, `${what}: ${response.status} without a JSON body`);
      if (!retryable(response.status, response.headers) || attempt >= MAX_RETRIES) {
        throw new APIError(response.status, `${what}: ${response.status} ${JSON.stringify(answer.error)}`);
      }
      await sleep(retryDelay(attempt, response.headers));
    }
  }

  async getSession(sessionId: string): Promise<Schemas["Session"]> {
    return this.retried("getTrainingSession", () =>
      this.api.GET("/rl/training-sessions/{session_id}", { params: { path: { session_id: sessionId } } }),
    );
  }

  /** A forward-backward pass, polled to its end; `idempotencyKey` defaults to a new UUID. */
  async forwardBackward(
    sessionId: string,
    body: ForwardBackwardBody,
    idempotencyKey: string = crypto.randomUUID(),
  ): Promise<ForwardBackwardResult> {
    const path = { session_id: sessionId };
    const sent = await this.standIn(sessionId, body);
    let operation = await this.retried("forwardBackward", () =>
      this.api.POST("/rl/training-sessions/{session_id}/operations/forward-backward", {
        params: { path, header: { "Idempotency-Key": idempotencyKey } },
        body: sent,
      }),
    );
    let wait = POLL_START_S;
    while (operation.status !== COMPLETED) {
      if (operation.status === FAILED) {
        const error = operation.error ?? {};
        throw new APIError(null, `operation ${operation.id} failed: ${error.code}: ${error.message ?? ""}`);
      }
      // Any other status, known or not, means: not finished yet.
      await sleep(wait);
      wait = Math.min(wait * 1.5, POLL_MAX_S);
      const id = operation.id;
      operation = await this.retried("getForwardBackwardOperation", () =>
        this.api.GET("/rl/training-sessions/{session_id}/operations/forward-backward/{operation_id}", {
          params: { path: { ...path, operation_id: id } },
        }),
      );
    }
    if (operation.output === undefined) throw new APIError(null, `operation ${operation.id} completed without output`);
    return this.downloaded(sessionId, operation.output);
  }

  /** The body to POST: itself, or (over the threshold) a stand-in naming the uploaded payload. */
  private async standIn(sessionId: string, body: ForwardBackwardBody): Promise<ForwardBackwardBody> {
    const encoded = JSON.stringify(body);
    if (Buffer.byteLength(encoded) <= UPLOAD_THRESHOLD_BYTES) return body;
    const where = await this.retried("createPayloadUploadUrl", () =>
      this.api.POST("/rl/training-sessions/{session_id}/payloads/upload-url", {
        params: { path: { session_id: sessionId } },
      }),
    );
    await this.retried("upload PUT", async () => {
      const response = await fetch(where.upload_url, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: encoded,
      });
      return { data: response.ok ? {} : undefined, error: await response.text(), response };
    });
    const standIn = { ...body, samples: body.samples.slice(0, 1), payload_id: where.payload_id };
    return standIn as ForwardBackwardBody;
  }

  /** The output with its offloaded members merged back in. */
  private async downloaded(sessionId: string, output: ForwardBackwardResult): Promise<ForwardBackwardResult> {
    const payloadId = output.payload_id;
    if (payloadId === undefined) return output;
    const where = await this.retried("createPayloadDownloadUrl", () =>
      this.api.POST("/rl/training-sessions/{session_id}/payloads/{payload_id}/download-url", {
        params: { path: { session_id: sessionId, payload_id: payloadId } },
      }),
    );
    const fetched = await this.retried("download GET", async () => {
      const response = await fetch(where.download_url);
      const data = response.ok ? ((await response.json()) as Partial<ForwardBackwardResult>) : undefined;
      return { data, response };
    });
    const { payload_id: _dropped, ...inline } = output;
    return { ...inline, ...fetched };
  }
}
