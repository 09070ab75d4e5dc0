/**
 * The raw baseline: plain node:http + pg answering the same page as GET /api/data, and nothing
 * else — no count, no API key, no headers beyond content-type. What the service is measured against.
 *   GET /?deployment=<id>&offset=<n>&limit=<n>
 */
import { createServer } from "node:http";
import pg from "pg";
import { serveToParent } from "./child.ts";

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.POOL_SIZE ?? 10),
  options: "-c TimeZone=UTC",
});

const server = createServer(async (req, res) => {
  try {
    const url = new URL(req.url ?? "/", "http://baseline");
    const { rows } = await pool.query("select id, name, description from data_item where deployment_id = $1 order by id limit $2 offset $3", [
      url.searchParams.get("deployment"),
      Number(url.searchParams.get("limit") ?? 10),
      Number(url.searchParams.get("offset") ?? 0),
    ]);
    res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
    res.end(JSON.stringify(rows));
  } catch (error) {
    res.writeHead(500, { "content-type": "text/plain" });
    res.end(String(error));
  }
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
serveToParent(server, () => pool.end());
