/** Reading untyped provider JSON without `any`: each helper narrows or answers undefined/null. */

/**
 * Parses a JSON object body; anything else (array, scalar, bad JSON) is null.
 *
 * A `\u0000` or a lone surrogate (`\ud800`) in a string or a key becomes U+FFFD: PostgreSQL
 * refuses both in jsonb (and NUL in text), and a verified delivery that can never be stored would
 * be retried by its provider forever. (The signature was checked over the raw bytes before this.)
 * JSON text carries them only as such escapes, so bodies without one take the plain, fast parse.
 */
export function parseJsonObject(rawBody: Buffer): Record<string, unknown> | null {
  try {
    const text = rawBody.toString("utf8");
    const value: unknown = UNSTORABLE_ESCAPE.test(text) ? JSON.parse(text, storable) : JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

const UNSTORABLE_ESCAPE = /\\u(0000|d[89a-f])/i;
const UNSTORABLE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const clean = (text: string) => text.replace(UNSTORABLE, "\uFFFD");

function storable(_key: string, value: unknown): unknown {
  if (typeof value === "string") return clean(value);
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (keys.some((key) => clean(key) !== key)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [clean(key), item]));
  }
  return value;
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

/**
 * A provider's delivery id (a header or a body field) as a dedupe key, or undefined: an empty or
 * blank id is absent, or every request carrying one would share it and all but the first would be
 * dropped as duplicates.
 */
export function deliveryId(value: unknown): string | undefined {
  const id = asString(value)?.trim();
  return id ? id : undefined;
}

/**
 * The values at a declaration path: `sender.id`, `repository.owner.id`, `authorizations[].user_id`
 * (`[]` walks every element of an array). Missing steps yield nothing rather than throwing, because
 * provider payloads are untrusted and vary by event.
 */
export function valuesAt(value: unknown, path: string): unknown[] {
  let current: unknown[] = [value];
  for (const step of path.split(".")) {
    const each = step.endsWith("[]");
    const key = each ? step.slice(0, -2) : step;
    const next: unknown[] = [];
    for (const item of current) {
      const record = asRecord(item);
      if (!record || !Object.hasOwn(record, key)) continue;
      const child = record[key];
      if (each) {
        if (Array.isArray(child)) next.push(...child);
      } else next.push(child);
    }
    current = next;
  }
  return current.filter((v) => v !== undefined);
}

/** The first value at a path, or undefined. */
export function valueAt(value: unknown, path: string): unknown {
  return valuesAt(value, path)[0];
}

/**
 * `value` without the member at a dot path (`passcode`, `auth.token`): a copy along the path only,
 * the rest shared. Unchanged when the path is absent.
 */
export function withoutPath(value: Record<string, unknown>, path: string): Record<string, unknown> {
  const [key, ...rest] = path.split(".");
  if (!Object.hasOwn(value, key)) return value;
  const { [key]: child, ...others } = value;
  if (rest.length === 0) return others;
  const record = asRecord(child);
  return record ? { ...others, [key]: withoutPath(record, rest.join(".")) } : value;
}
