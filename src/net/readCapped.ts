/**
 * The first `limit` bytes of an answer's body as text; the rest is never read (leaving the loop
 * releases the body). A body that fails midway keeps what arrived: its status was already answered.
 * An undici body (the delivery attempt log) or a fetch Response's (a provider's error answer).
 */
export async function readCapped(body: AsyncIterable<Uint8Array> | null | undefined, limit: number): Promise<string> {
  if (!body) return "";
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      const buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      chunks.push(buffer.subarray(0, limit - size));
      size += Math.min(buffer.length, limit - size);
      if (size >= limit) break;
    }
  } catch {
    // Keep what arrived.
  }
  return Buffer.concat(chunks).toString("utf8");
}
