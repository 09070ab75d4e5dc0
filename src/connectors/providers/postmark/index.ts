/**
 * Postmark: a Server API token (the API Tokens tab of a Postmark server) sent in the
 * `X-Postmark-Server-Token` header; Postmark answers 401 to a wrong or missing token and has no
 * OAuth. The token is checked with `GET /server`, the server it belongs to (`ID`, `Name`).
 * Connect only: Postmark's webhooks are set per server with optional basic auth, not signed.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "postmark",
  displayName: "Postmark",
  category: "marketing",
  description: "Send transactional email and read the bounces, messages and statistics of a Postmark server.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#1d1d1f"/>' +
    '<path d="M5 8l7 5 7-5v9H5z" fill="none" stroke="#ffde00" stroke-width="2" stroke-linejoin="round"/></svg>',
  docs: ["https://postmarkapp.com/developer/api/overview", "https://postmarkapp.com/developer/api/server-api"],
  authMode: "API_KEY",
  credentials: {
    fields: [
      {
        name: "server_token",
        label: "Server API token",
        help: "In Postmark, open Servers, choose the server, then its API Tokens tab.",
        secret: true,
        example: "00000000-0000-4000-8000-000000000000",
      },
    ],
    whereToFind: "https://account.postmarkapp.com/servers",
    apiUrl: "https://api.postmarkapp.com",
    key: "server_token",
    test: { method: "GET", path: "/server", idPath: "ID", displayNamePath: "Name" },
  },
  api: { auth: { style: "header", header: "x-postmark-server-token" }, headers: { accept: "application/json" } },
});
