import type { ServerResponse } from "node:http";

const PIECE = Buffer.alloc(64 * 1024, 0x61);

/**
 * Answers 200 with `total` bytes of "a" in 64 KiB pieces, waiting for `drain` between them: a large
 * download that costs the serving side no memory (the proxy's streaming tests and bench/proxy).
 */
export function streamBytes(res: ServerResponse, total: number): void {
  res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(total) });
  let sent = 0;
  const pump = () => {
    while (sent < total) {
      const piece = PIECE.subarray(0, Math.min(PIECE.length, total - sent));
      sent += piece.length;
      if (!res.write(piece)) return void res.once("drain", pump);
    }
    res.end();
  };
  pump();
}
