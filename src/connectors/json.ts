/** Reading untyped provider JSON without `any`: each helper narrows or answers undefined/null. */

/** Parses a JSON object body; anything else (array, scalar, bad JSON) is null. */
export function parseJsonObject(rawBody: Buffer): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(rawBody.toString("utf8"));
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** Narrowing helpers for untyped provider JSON. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

export function asString(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

export function toDate(value: unknown): Date | undefined {
  if (typeof value !== "string" && typeof value !== "number") return undefined;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? undefined : d;
}
