/**
 * Jotform API at https://api.jotform.com: an API key (My Account → API) sent in the `APIKEY`
 * header, checked with `GET /user` (the account's `content.username`). Jotform's form webhooks
 * carry no signature and arrive as multipart form data, so new submissions are read instead:
 * `GET /user/submissions` lists the account's submissions across its forms, newest first with
 * `orderby=created_at`; an item is forwarded once per `id`, the newest `created_at` kept as the
 * position (`updated_at` is null until a submission is edited, so it cannot be the version).
 * Accounts on the EU or HIPAA servers use eu-api.jotform.com or hipaa-api.jotform.com (set
 * CONNECTOR_JOTFORM_API_URL).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "jotform",
  displayName: "Jotform",
  category: "forms",
  description: "Submissions to any of a Jotform account's forms.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#0a1551"/>' +
    '<path d="M9 6l-3 3M13 6l-7 7M17 6L6 17M18 10l-8 8M18 14l-4 4" stroke="#ff6100" stroke-width="1.8" stroke-linecap="round"/></svg>',
  docs: ["https://api.jotform.com/docs/", "https://api.jotform.com/docs/#user", "https://api.jotform.com/docs/#user-submissions", "https://www.jotform.com/help/253-how-to-find-my-jotform-api-key/"],
  authMode: "API_KEY",
  credentials: {
    fields: [
      {
        name: "api_key",
        label: "API key",
        help: "In Jotform open My Account → API and create a key (Full Access or Read Access).",
        secret: true,
        pattern: "^[A-Za-z0-9]{20,64}$",
        example: "0123456789abcdef0123456789abcdef",
      },
    ],
    whereToFind: "https://www.jotform.com/myaccount/api",
    key: "api_key",
    test: { method: "GET", path: "/user", idPath: "content.username", displayNamePath: "content.name" },
  },
  api: { baseUrl: "https://api.jotform.com", auth: { style: "header", header: "apikey" } },
  triggers: [
    {
      name: "submission_created",
      displayName: "Form submitted",
      description: "Someone submitted one of the account's forms.",
      providerEvent: "submission",
      samplePayload: {
        id: "237955080346633702",
        form_id: "31751954731962",
        ip: "203.0.113.10",
        created_at: "2026-01-01 12:00:00",
        status: "ACTIVE",
        new: "1",
        flag: "0",
        notes: "",
        updated_at: "2026-01-01 12:00:00",
        answers: {
          "1": { name: "clickTo", order: "1", text: "Contact us", type: "control_head" },
          "3": { name: "fullName", order: "2", text: "Full Name", type: "control_fullname", answer: { first: "John", last: "Doe" }, prettyFormat: "John Doe" },
          "4": { name: "email", order: "3", text: "E-mail", type: "control_email", answer: "john@example.com" },
        },
      },
    },
  ],
  polling: {
    triggers: {
      submission_created: {
        request: { path: "/user/submissions", query: { orderby: "created_at", limit: "100" } },
        items: "content",
        id: "id",
        version: "created_at",
        occurredAt: ["created_at"],
        cursor: { from: "version" },
      },
    },
  },
});
