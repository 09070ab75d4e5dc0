import { execFile, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { fireTestEvent, forwardTo } from "../helpers/live.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type ReceivedRequest, type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";
import { scaled } from "../helpers/timing.ts";

/**
 * The verification code in docs/verifying-webhooks.md, exactly as written there, run against real
 * deliveries of the running service: before a secret rotation, and during the 24-hour overlap when
 * `webhook-signature` carries two signatures.
 */

const run = promisify(execFile);
const doc = readFileSync(new URL("../../docs/verifying-webhooks.md", import.meta.url), "utf8");
const snippet = (language: string) => {
  const found = new RegExp("```" + language + "\\n([\\s\\S]*?)```").exec(doc)?.[1];
  if (!found) throw new Error(`docs/verifying-webhooks.md has no \`\`\`${language} block`);
  return found;
};

const SnippetSecret = graphql(`query SnippetSecret($id: ID!) { deployment(id: $id) { signingSecret } }`);
const SnippetRotate = graphql(`mutation SnippetRotate($id: ID!) { rotateSigningSecret(deploymentId: $id) { signingSecret } }`);

type Case = { secret: string; headers: Record<string, string>; body: string };

let app: TestApp;
let receiver: Receiver;
let ada: Operator;
const dir = mkdtempSync(join(tmpdir(), "switchyard-snippets-"));
const cases: { name: string; input: Case; expected: boolean }[] = [];

async function delivered(eventId: string): Promise<ReceivedRequest> {
  const requests = await receiver.waitFor((all) => all.some((r) => r.headers["webhook-id"] === eventId));
  return requests.find((r) => r.headers["webhook-id"] === eventId)!;
}
const headersOf = (request: ReceivedRequest) =>
  Object.fromEntries(["webhook-id", "webhook-timestamp", "webhook-signature"].map((name) => [name, String(request.headers[name])]));

beforeAll(async () => {
  receiver = await startReceiver();
  app = await startTestApp({ DELIVERY_RETRY_SCHEDULE: "100ms" }, { worker: true });
  ada = await createOperator(app, "Ada");
  await forwardTo(app, ada.deploymentId, receiver.url, { token: ada.token });

  const oldSecret = ok(await app.gql(SnippetSecret, { id: ada.deploymentId }, { token: ada.token })).deployment!.signingSecret!;
  const before = await delivered((await fireTestEvent(app, ada.deploymentId, { token: ada.token })).id);
  const newSecret = ok(await app.gql(SnippetRotate, { id: ada.deploymentId }, { token: ada.token })).rotateSigningSecret.signingSecret!;
  const during = await delivered((await fireTestEvent(app, ada.deploymentId, { token: ada.token })).id);
  expect(String(during.headers["webhook-signature"]).split(" ")).toHaveLength(2); // the overlap under test

  const add = (name: string, secret: string, request: ReceivedRequest, expected: boolean, body = request.body) =>
    cases.push({ name, input: { secret, headers: headersOf(request), body }, expected });
  add("before rotation, the secret", oldSecret, before, true);
  add("before rotation, a secret not yet in use", newSecret, before, false);
  add("during the overlap, the new secret", newSecret, during, true);
  add("during the overlap, the old secret", oldSecret, during, true);
  add("a body changed on the way", newSecret, during, false, during.body.replace('"account":"test"', '"account":"eve"'));
  add("another deployment's secret", "whsec_" + Buffer.alloc(24, 7).toString("base64"), during, false);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

const expected = () => cases.map((c) => `${c.name}: ${c.expected}`);
const answered = (output: string) => (JSON.parse(output) as boolean[]).map((verdict, i) => `${cases[i].name}: ${verdict}`);

test("the Node.js snippet accepts real deliveries, both signatures of a rotation, and refuses the rest", async () => {
  const file = join(dir, "verify.mjs");
  writeFileSync(
    file,
    `${snippet("js")}\nimport { readFileSync } from "node:fs";\n` +
      `const cases = JSON.parse(readFileSync(0, "utf8"));\n` +
      `console.log(JSON.stringify(cases.map((c) => verifyWebhook(c.secret, c.headers, c.body))));\n`,
  );
  const child = run(process.execPath, [file]);
  child.child.stdin!.end(JSON.stringify(cases.map((c) => c.input)));
  expect(answered((await child).stdout)).toEqual(expected());
});

test("the Python snippet does the same", async () => {
  const file = join(dir, "verify.py");
  writeFileSync(
    file,
    `${snippet("python")}\n\nif __name__ == "__main__":\n    import json, sys\n` +
      `    cases = json.load(sys.stdin)\n` +
      `    print(json.dumps([verify_webhook(c["secret"], c["headers"], c["body"].encode()) for c in cases]))\n`,
  );
  const child = run("python3", [file]);
  child.child.stdin!.end(JSON.stringify(cases.map((c) => c.input)));
  expect(answered((await child).stdout)).toEqual(expected());
});

// Go is not needed to run Switchyard, so a machine without it skips this one; CI installs it (.ci/run).
const hasGo = spawnSync("go", ["version"]).status === 0;

test.skipIf(!hasGo)("the Go snippet does the same (skipped without a Go toolchain)", async () => {
  const module = join(dir, "go");
  mkdirSync(join(module, "webhooks"), { recursive: true });
  writeFileSync(join(module, "go.mod"), "module snippetcheck\n\ngo 1.19\n");
  writeFileSync(join(module, "webhooks", "verify.go"), snippet("go"));
  writeFileSync(
    join(module, "main.go"),
    `package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"

	"snippetcheck/webhooks"
)

type testCase struct {
	Secret  string            \`json:"secret"\`
	Headers map[string]string \`json:"headers"\`
	Body    string            \`json:"body"\`
}

func main() {
	var cases []testCase
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		panic(err)
	}
	verdicts := make([]bool, len(cases))
	for i, c := range cases {
		header := http.Header{}
		for name, value := range c.Headers {
			header.Set(name, value)
		}
		verdicts[i] = webhooks.VerifyWebhook(c.Secret, header, []byte(c.Body))
	}
	out, _ := json.Marshal(verdicts)
	fmt.Println(string(out))
}
`,
  );
  // Compiling takes seconds, more on a busy machine; nothing is downloaded (standard library only).
  const child = run("go", ["run", "."], { cwd: module, env: { ...process.env, GOFLAGS: "-mod=mod", GOPROXY: "off" } });
  child.child.stdin!.end(JSON.stringify(cases.map((c) => c.input)));
  expect(answered((await child).stdout)).toEqual(expected());
}, scaled(180_000));
