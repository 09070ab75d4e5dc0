/**
 * Freshdesk API v2 at `https://{domain}.freshdesk.com/api/v2`: HTTP Basic with the agent's API
 * key (Profile Settings → Your API Key) as user name and any password (`X` by convention). The key
 * is checked with `GET /api/v2/agents/me` (the agent's `id`, `contact.name`). Connect only:
 * Freshdesk sends webhooks from automation rules the admin writes, without a signature.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "freshdesk",
  displayName: "Freshdesk",
  category: "support",
  description: "Read and update the tickets, contacts and companies of a Freshdesk helpdesk.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#25c16f"/>' +
    '<path d="M6 12a6 6 0 0 1 12 0v5h-4v-4h3M6 13h3v4H6z" fill="none" stroke="#fff" stroke-width="1.8" stroke-linejoin="round"/></svg>',
  docs: ["https://developers.freshdesk.com/api/#authentication", "https://developers.freshdesk.com/api/#me"],
  authMode: "BASIC",
  params: [
    {
      name: "domain",
      description: "The helpdesk's Freshdesk subdomain: acme for acme.freshdesk.com.",
      pattern: "^[a-z0-9][a-z0-9-]{0,62}$",
      example: "acme",
    },
  ],
  credentials: {
    fields: [
      {
        name: "api_key",
        label: "API key",
        help: "In Freshdesk, open your profile picture → Profile Settings; the key is under Your API Key.",
        secret: true,
        example: "abcdefghij0123456789",
      },
    ],
    whereToFind: "https://support.freshdesk.com/support/solutions/articles/215517-how-to-find-your-api-key",
    apiUrl: "https://{domain}.freshdesk.com",
    basic: { username: "{api_key}", password: "X" },
    test: { method: "GET", path: "/api/v2/agents/me", idPath: "id", displayNamePath: "contact.name" },
  },
  api: { auth: { style: "basic" } },
});
