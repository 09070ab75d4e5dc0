/**
 * The durable peer: the forwarder a Node team would write instead of running Switchyard.
 * node:http receives GitHub's webhook, verifies X-Hub-Signature-256 (HMAC-SHA256 of the raw body,
 * compared in constant time, as GitHub documents), `addJob`s it into graphile-worker (its own
 * `graphile_worker` schema in the benchmark's database, on the same PostgreSQL server) and answers
 * 202 once the job committed; a task POSTs the body to the receiver, concurrency 10, retried by
 * graphile-worker's own backoff when the POST fails. The job id is the webhook-id.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";
import { Logger, makeWorkerUtils, run, type Task } from "graphile-worker";
import { request } from "undici";

const connectionString = process.env.DATABASE_URL!;
const target = process.env.RECEIVER_URL!;
const secret = process.env.GITHUB_WEBHOOK_SECRET!;

const forward: Task = async (payload, helpers) => {
  const { body } = payload as { body: string };
  const response = await request(target, {
    method: "POST",
    headers: { "content-type": "application/json", "webhook-id": helpers.job.id },
    body,
  });
  await response.body.dump();
  if (response.statusCode < 200 || response.statusCode > 299) throw new Error(`receiver answered ${response.statusCode}`);
};

// Quiet, as the service runs with LOG_LEVEL=warn: a line per job would cost it CPU the others do not spend.
const logger = new Logger(() => (level, message) => {
  if (level === "error") console.error(message);
});
const utils = await makeWorkerUtils({ connectionString, logger });
await utils.migrate();
const runner = await run({ connectionString, logger, concurrency: 10, noHandleSignals: false, pollInterval: 1000, taskList: { forward } });

function verified(raw: Buffer, header: string | undefined): boolean {
  if (!header?.startsWith("sha256=")) return false;
  const expected = Buffer.from(`sha256=${createHmac("sha256", secret).update(raw).digest("hex")}`);
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", async () => {
    const raw = Buffer.concat(chunks);
    if (!verified(raw, req.headers["x-hub-signature-256"] as string | undefined)) {
      res.writeHead(401).end("bad signature");
      return;
    }
    try {
      const job = await utils.addJob("forward", { body: raw.toString("utf8") }, { maxAttempts: 25 });
      res.writeHead(202, { "content-type": "application/json" }).end(JSON.stringify({ id: job.id }));
    } catch (error) {
      res.writeHead(503).end(String(error));
    }
  });
});
server.listen(0, "127.0.0.1", () => process.send?.({ port: (server.address() as { port: number }).port }));
process.on("SIGTERM", async () => {
  server.close();
  await runner.stop().catch(() => {});
  await Promise.resolve(utils.release()).catch(() => {});
  process.exit(0);
});
