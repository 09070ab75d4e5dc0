import { describe, expect, test } from "vitest";
import { sessionTokenFrom } from "../../src/auth/principal.ts";

// Which session a request names: a bearer token first, else the sy_session cookie among the others.
describe("sessionTokenFrom", () => {
  test("the cookie among others, wherever it is, spaces around pairs ignored", () => {
    expect(sessionTokenFrom({ cookie: "sy_session=sy_session_abc" })).toBe("sy_session_abc");
    expect(sessionTokenFrom({ cookie: "theme=dark;  sy_session=sy_session_abc ; lang=en" })).toBe("sy_session_abc");
    expect(sessionTokenFrom({ cookie: "a=1; b; sy_session=first; sy_session=second" })).toBe("first");
  });

  test("a value is percent-decoded, keeps any '=' after the first, and malformed or empty names none", () => {
    expect(sessionTokenFrom({ cookie: "sy_session=sy%5Fsession%5Fx" })).toBe("sy_session_x");
    expect(sessionTokenFrom({ cookie: "sy_session=a=b=" })).toBe("a=b=");
    expect(sessionTokenFrom({ cookie: "sy_session=%" })).toBeUndefined();
    expect(sessionTokenFrom({ cookie: "sy_session=" })).toBeUndefined();
    expect(sessionTokenFrom({ cookie: "sy_session" })).toBeUndefined();
    expect(sessionTokenFrom({ cookie: "xsy_session=abc; sy_sessionx=abc" })).toBeUndefined();
  });

  test("a bearer token wins over the cookie", () => {
    expect(sessionTokenFrom({ authorization: "Bearer  tok ", cookie: "sy_session=abc" })).toBe("tok");
    expect(sessionTokenFrom({ authorization: "Basic x", cookie: "sy_session=abc" })).toBe("abc");
  });
});
