/**
 * The raw baseline: node:http accepts the POST, inserts it in pg (one statement), answers 200,
 * then POSTs it to the receiver with undici. No verification, no routing, no signing, no retry.
 */
import { createServer } from "node:http";
import pg from "pg";
import { request } from "undici";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
await pool.query("create table if not exists baseline_event (id bigserial primary key, body jsonb not null, received_at timestamptz default now())");
const target = process.env.RECEIVER_URL!;

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", async () => {
    const body = Buffer.concat(chunks).toString("utf8");
    try {
      const { rows } = await pool.query<{ id: string }>("insert into baseline_event (body) values ($1::jsonb) returning id", [body]);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ id: rows[0].id }));
      const response = await request(target, { method: "POST", headers: { "content-type": "application/json", "webhook-id": rows[0].id }, body });
      await response.body.dump();
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    }
  });
});
server.listen(0, "127.0.0.1", () => process.send?.({ port: (server.address() as { port: number }).port }));
