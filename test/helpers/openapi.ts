import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { openApiDocument } from "../../src/openapi/document.ts";

/**
 * The REST contract enforced on real responses: `checkedFetch` is `fetch` that, for a route the
 * OpenAPI document describes, fails unless the status, the content type, the required headers and
 * the body are what the document says. REST tests import it as `fetch`, so every response they get
 * is checked and the document cannot drift from the code.
 */

type Operation = { responses: Record<string, ResponseSpec> };
type ResponseSpec = {
  headers?: Record<string, { required?: boolean; schema?: object }>;
  content?: Record<string, { schema?: object }>;
};

const document = openApiDocument({ publicUrl: "http://localhost" }, "0.0.0");
const paths = document.paths as unknown as Record<string, Record<string, Operation>>;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);

const routes = Object.keys(paths).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replaceAll(".", "\\.").replace(/\{[^}]+\}/g, "[^/]+")}$`),
}));

// Each schema is compiled inside a copy of the document's components, so `#/components/…` resolves.
const compiled = new Map<object, ReturnType<typeof ajv.compile>>();
function validator(schema: object) {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile({ ...schema, components: document.components });
    compiled.set(schema, validate);
  }
  return validate;
}

const explain = (errors: ErrorObject[] | null | undefined) => (errors ?? []).map((e) => `${e.instancePath || "(root)"} ${e.message}`).join("; ");

/** Checks one response against the document; throws an Error saying what differs. */
export async function assertMatchesContract(method: string, url: URL, response: Response): Promise<void> {
  const route = routes.find((r) => r.pattern.test(url.pathname));
  if (!route) return; // not a REST route (the console, /graphql)
  const where = `${method} ${route.template} → ${response.status}`;
  const operation = paths[route.template][method.toLowerCase()];
  if (!operation) throw new Error(`${where}: the OpenAPI document has no ${method} for ${route.template}`);
  const spec = operation.responses[String(response.status)] ?? operation.responses[`${String(response.status)[0]}XX`] ?? operation.responses.default;
  if (!spec) throw new Error(`${where}: status ${response.status} is not documented in src/openapi/document.ts`);

  for (const [name, header] of Object.entries(spec.headers ?? {})) {
    const value = response.headers.get(name);
    if (value === null) {
      if (header.required) throw new Error(`${where}: the documented header ${name} is missing`);
      continue;
    }
    if (header.schema && !validator(header.schema)(value)) throw new Error(`${where}: header ${name}: ${explain(validator(header.schema).errors)}`);
  }

  if (!spec.content) return;
  const type = (response.headers.get("content-type") ?? "").split(";")[0].trim();
  const media = spec.content[type] ?? spec.content["*/*"];
  if (!media) throw new Error(`${where}: content type "${type}" is not documented (documented: ${Object.keys(spec.content).join(", ")})`);
  if (!media.schema || !/json$/.test(type)) return;
  const text = await response.clone().text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${where}: the body is not JSON: ${text.slice(0, 200)}`);
  }
  const validate = validator(media.schema);
  if (!validate(body)) throw new Error(`${where}: the body does not match the document: ${explain(validate.errors)}\n${text.slice(0, 500)}`);
}

/** `fetch`, checked against the OpenAPI document (see above). */
export async function checkedFetch(input: string | URL, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  await assertMatchesContract(init?.method ?? "GET", new URL(String(input)), response);
  return response;
}

export { document as openApi };
