import { expect, test } from "vitest";
import { explainFailure } from "../../src/cli/connection.ts";

/** What the CLI prints when the server or the connection stops a command, by the error it got. */
const connection = { base: "http://localhost:4000", kind: "api-key" as const };

test("a server's message is printed as its own sentence, with one full stop", () => {
  expect(explainFailure([{ message: "Unexpected error.", extensions: { code: "INTERNAL_SERVER_ERROR" } }], connection)).toBe("Stopped: Unexpected error.");
  // A WebSocket close reason is a phrase: it gets its full stop.
  expect(explainFailure({ code: 4500, reason: "the server is restarting" }, connection)).toBe("Stopped: the server is restarting.");
  expect(explainFailure({ code: 1006, reason: "" }, connection)).toBe("Stopped: the connection to http://localhost:4000 failed.");
});

test("a refusal for now says when to run the command again, from the server's Retry-After", () => {
  const refusal = (retryAfter?: number) => [{ message: "Nothing new is stored just now.", extensions: { code: "SERVICE_UNAVAILABLE", ...(retryAfter ? { retryAfter } : {}) } }];
  expect(explainFailure(refusal(60), connection)).toBe("Switchyard cannot take this now: Nothing new is stored just now.\nRun the command again in 60 s.");
  expect(explainFailure(refusal(), connection)).toBe("Switchyard cannot take this now: Nothing new is stored just now.\nRun the command again in a minute.");
});
