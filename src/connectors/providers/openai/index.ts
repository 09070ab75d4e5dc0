/**
 * OpenAI API: a secret API key (platform.openai.com → API keys) sent as `Authorization: Bearer
 * <key>`. The key is checked with `GET /v1/models`, the cheapest authenticated read (it answers a
 * `list` of models and costs no tokens). The API names no account or organization on a key's
 * answers, so the connection's id is only the answer's `object` ("list"): the connection is told
 * apart by its account name in Switchyard. Connect only: OpenAI's webhooks (Standard Webhooks
 * signatures) are configured per project in the dashboard, for its own background jobs.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "openai",
  displayName: "OpenAI",
  category: "other",
  description: "Call the OpenAI API (models, responses, embeddings, files) with an end user's own API key.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#101010"/>' +
    '<path d="M12 5.5l5.6 3.25v6.5L12 18.5l-5.6-3.25v-6.5z" fill="none" stroke="#fff" stroke-width="1.6" stroke-linejoin="round"/>' +
    '<circle cx="12" cy="12" r="1.8" fill="#fff"/></svg>',
  docs: [
    "https://platform.openai.com/docs/api-reference/authentication",
    "https://platform.openai.com/docs/api-reference/models/list",
    "https://help.openai.com/en/articles/4936850-where-do-i-find-my-openai-api-key",
  ],
  authMode: "API_KEY",
  credentials: {
    fields: [
      {
        name: "api_key",
        label: "API key",
        help: "Create a secret key on platform.openai.com under API keys; it starts with sk- and is shown only once.",
        secret: true,
        pattern: "^sk-[A-Za-z0-9_-]{16,200}$",
        example: "sk-proj-example0123456789abcdef",
      },
    ],
    whereToFind: "https://platform.openai.com/api-keys",
    key: "api_key",
    test: { method: "GET", path: "/models", idPath: "object" },
  },
  // The SDKs' base URL (`baseURL`, default https://api.openai.com/v1): paths are under the version.
  api: { baseUrl: "https://api.openai.com/v1", auth: { style: "bearer" } },
});
