import * as z from "zod";

/**
 * Characters a name must not contain: C0 and C1 controls and DEL (ESC starts the terminal escape
 * sequences `switchyard listen` would otherwise print: OSC 8 links, OSC 52 clipboard writes, cursor
 * moves), bidi overrides and isolates (U+202A–U+202E, U+2066–U+2069, which turn "alice‮gnp.exe"
 * around on screen), and the other invisible format characters, line and paragraph separators and
 * lone surrogates (the same set the connect pages and `auth-url`'s account refuse).
 */
export const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;

export const UNPRINTABLE_MESSAGE = "must not contain control characters or invisible formatting characters (such as bidi overrides)";

/**
 * A name shown to people (organization, user, data item): trimmed, 1..`max` characters, nothing
 * that is not seen or that a terminal would obey.
 */
export function displayName(max: number) {
  // Checked before trimming: a trailing newline or tab is refused too, not silently cut.
  return z
    .string()
    .refine((value) => !UNPRINTABLE.test(value), UNPRINTABLE_MESSAGE)
    .trim()
    .min(1, "is required")
    .max(max, `must be at most ${max} characters`);
}
