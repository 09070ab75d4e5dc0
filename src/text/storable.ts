/**
 * Text from outside (a receiver's answer, a provider's API answer or identity, a webhook body) made
 * storable in PostgreSQL. Two things a JavaScript string can hold and no PostgreSQL text or jsonb
 * value can: the NUL character (`\0`, refused by text, and as `\u0000` by jsonb) and an unpaired
 * UTF-16 surrogate (`"\ud800"`, which JSON allows but UTF-8 cannot encode; jsonb refuses the
 * escape). One such character in a value fails the whole statement — and a statement that records
 * many rows at once then fails for all of them.
 *
 * Both become U+FFFD (the replacement character), the way a UTF-8 decoder treats bytes it cannot
 * read: the value is kept, readable, and visibly altered where it had to be. Everything else is
 * left exactly as it was. The same input always gives the same output, so a deduplication key or
 * an external id made storable still matches itself the next time.
 */

/** What a character that cannot be stored becomes. */
export const REPLACEMENT_CHARACTER = "\uFFFD";

const UNSTORABLE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, "g");

/** Whether `text` holds a NUL or an unpaired surrogate. */
export function isStorable(text: string): boolean {
  return !UNSTORABLE.test(text);
}

/** `text` with every NUL and unpaired surrogate replaced by U+FFFD (the same string when there is none). */
export function storableText(text: string): string {
  return UNSTORABLE.test(text) ? text.replace(UNSTORABLE_ALL, REPLACEMENT_CHARACTER) : text;
}

/** storableText for optional values. */
export function storableOptional<T extends string | null | undefined>(text: T): T {
  return (typeof text === "string" ? storableText(text) : text) as T;
}

/**
 * JSON.stringify writes a NUL as `\u0000` and an unpaired surrogate as `\udxxx` (well-formed
 * JSON.stringify; a paired one is written as itself). An escape counts only after an even run of
 * backslashes: `\\u0000` is a backslash followed by the text "u0000".
 */
const UNSTORABLE_ESCAPE = /(\\+)u(0000|d[89a-f][0-9a-f]{2})/gi;

/**
 * A JSON value (an event's data, an identity's metadata) as storable JSON text, and the value that
 * text stands for: the one to publish or hand on, so what is sent is what was stored. Keys are
 * cleaned as well as values. Works on the text, not by walking the value, so a deeply nested value
 * costs no deeper stack than JSON.stringify itself; a clean value (nearly every one) is returned as
 * it is, after one scan of its text.
 */
export function storableJson<T>(value: T): { json: string; value: T } {
  const json = JSON.stringify(value);
  if (json === undefined) return { json: "null", value };
  let changed = false;
  const cleaned = json.replace(UNSTORABLE_ESCAPE, (escape, backslashes: string) => {
    if (backslashes.length % 2 === 0) return escape;
    changed = true;
    return `${backslashes}ufffd`;
  });
  if (!changed) return { json, value };
  return { json: cleaned, value: JSON.parse(cleaned) as T };
}
