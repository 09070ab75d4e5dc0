/**
 * Postmark: a Server API token (the API Tokens tab of a Postmark server) sent in the
 * `X-Postmark-Server-Token` header; Postmark answers 401 to a wrong or missing token and has no
 * OAuth. The token is checked with `GET /server`, the server it belongs to (`ID`, `Name`).
 * Postmark's webhooks are set per server with optional basic auth, not signed, so sent messages are
 * polled from the outbound message search.
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
  docs: [
    "https://postmarkapp.com/developer/api/overview",
    "https://postmarkapp.com/developer/api/server-api",
    "https://postmarkapp.com/developer/api/messages-api",
  ],
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
    key: "server_token",
    test: { method: "GET", path: "/server", idPath: "ID", displayNamePath: "Name" },
  },
  api: { baseUrl: "https://api.postmarkapp.com", auth: { style: "header", header: "x-postmark-server-token" }, headers: { accept: "application/json" } },
  triggers: [
    {
      name: "message_sent",
      displayName: "Message sent",
      description: "The server sent an email (read from the outbound message list on a schedule).",
      providerEvent: "GET /messages/outbound",
      // One message as the outbound message search answers it.
      samplePayload: {
        Tag: "Invitation",
        MessageID: "0ac29aee-e1cd-480d-b08d-4f48548ff48d",
        MessageStream: "outbound",
        To: [{ Email: "john.doe@yahoo.com", Name: null }],
        Cc: [],
        Bcc: [],
        Recipients: ["john.doe@yahoo.com"],
        ReceivedAt: "2026-01-01T05:00:00.0000000-05:00",
        From: '"Joe" <joe@domain.com>',
        Subject: "staging",
        Attachments: [],
        Status: "Sent",
        TrackOpens: true,
        TrackLinks: "HtmlAndText",
        Metadata: { color: "blue" },
        Sandboxed: false,
      },
    },
  ],
  polling: {
    triggers: {
      // The latest messages first; only those received after the newest one seen are forwarded.
      message_sent: {
        request: { path: "/messages/outbound", query: { count: "100", offset: "0" } },
        items: "Messages",
        id: "MessageID",
        version: "ReceivedAt",
        occurredAt: ["ReceivedAt"],
        cursor: { from: "version" },
      },
    },
  },
});
