/**
 * Notion: public-integration OAuth (HTTP Basic at the token endpoint, no scopes: capabilities are
 * set on the integration; `owner=user`). The token answer names the workspace, which is the
 * account's id: webhook events carry `workspace_id`. Webhooks sign `X-Notion-Signature:
 * sha256=<hex HMAC-SHA256 of the body>` keyed with the subscription's verification token, which
 * Notion POSTs once, unsigned, when the subscription is created (docs/connectors.md, "Notion").
 */
import { declareConnector } from "../../declaration.ts";
import { asRecord, asString } from "../../json.ts";

const workspace = { workspace_id: "13950b26-c203-4f3b-b97d-93ec06319565", workspace_name: "Quantify Labs" };
const envelope = (id: string, type: string, timestamp: string, entity: Record<string, unknown>, data: Record<string, unknown>) => ({
  id,
  timestamp,
  ...workspace,
  subscription_id: "29d75c0d-5546-4414-8459-7b7a92f1fc4b",
  integration_id: "0ef2e755-4912-8096-91c1-00376a88a5ca",
  type,
  authors: [{ id: "c7c11cca-1d73-471d-9b6e-bdef51470190", type: "person" }],
  attempt_number: 1,
  entity,
  data,
});
const page = { id: "153104cd-477e-809d-8dc4-ff2d96ae3090", type: "page" };
const parent = { id: "13950b26-c203-4f3b-b97d-93ec06319565", type: "space" };

export default declareConnector({
  name: "notion",
  displayName: "Notion",
  category: "docs",
  description: "Pages and comments created or changed in the Notion pages shared with the integration.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#fff" stroke="#191919" stroke-width="1.5"/>' +
    '<path d="M8 17.5V6.5l8 11V6.5" stroke="#191919" stroke-width="2" fill="none" stroke-linejoin="round"/></svg>',
  docs: [
    "https://developers.notion.com/docs/authorization",
    "https://developers.notion.com/reference/create-a-token",
    "https://developers.notion.com/reference/webhooks",
    "https://developers.notion.com/reference/webhooks-events-delivery",
  ],
  oauth: {
    authorizeUrl: "https://api.notion.com/v1/oauth/authorize",
    tokenUrl: "https://api.notion.com/v1/oauth/token",
    scopes: [],
    pkce: false,
    clientAuth: "client_secret_basic",
    extraAuthorizeParams: { owner: "user" },
    refresh: false,
  },
  // Code: the identity is in the token answer (GET /users/me needs a Notion-Version header and
  // names the integration's bot, not the person).
  identity: {
    async read({ token }) {
      const workspaceId = asString(token.workspace_id);
      if (!workspaceId) throw new Error("Notion's token answer has no workspace_id");
      const owner = asRecord(asRecord(token.owner)?.user);
      return {
        externalId: workspaceId,
        displayName: asString(token.workspace_name),
        metadata: { botId: asString(token.bot_id) ?? null, userId: asString(owner?.id) ?? null, userName: asString(owner?.name) ?? null },
      };
    },
  },
  // The base @notionhq/client is configured with (its `baseUrl`): it adds `/v1/…` itself.
  // https://github.com/makenotion/notion-sdk-js#clientoptions
  api: { baseUrl: "https://api.notion.com" },
  webhook: {
    scheme: { type: "hmac", header: "x-notion-signature", algorithm: "sha256", encoding: "hex", prefix: "sha256=" },
    // The unsigned `{"verification_token": …}` POST at subscription: captured for the operator to
    // paste back into Notion (and, once confirmed and with no webhook secret configured, the key
    // events are checked with). https://developers.notion.com/reference/webhooks
    verificationToken: { field: "verification_token" },
    event: { path: "type" },
    routing: ["workspace_id"],
    deliveryId: { paths: ["id"] },
    occurredAt: ["timestamp"],
  },
  triggers: [
    {
      name: "page_created",
      displayName: "Page created",
      description: "A page was created.",
      providerEvent: "page.created",
      samplePayload: envelope("367cba44-b6f3-4c92-81e7-6a2e9659efd4", "page.created", "2026-01-01T12:00:00.285Z", page, { parent }),
    },
    {
      name: "page_content_updated",
      displayName: "Page content updated",
      description: "The content of a page changed (events within a short window are aggregated).",
      providerEvent: "page.content_updated",
      samplePayload: envelope("56c2e2e5-b3a2-4c1d-9e8f-7a6b5c4d3e2f", "page.content_updated", "2026-01-01T12:05:00.000Z", page, {
        parent,
        updated_blocks: [{ id: "153104cd-477e-80ab-a1b2-c3d4e5f6a7b8", type: "block" }],
      }),
    },
    {
      name: "page_properties_updated",
      displayName: "Page properties updated",
      description: "A page's properties changed.",
      providerEvent: "page.properties_updated",
      samplePayload: envelope("6d7e8f9a-0b1c-4d2e-8f3a-4b5c6d7e8f9a", "page.properties_updated", "2026-01-01T12:10:00.000Z", page, {
        parent: { id: "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", type: "database" },
        updated_properties: ["title", "XGe%40"],
      }),
    },
    {
      name: "comment_created",
      displayName: "Comment created",
      description: "A comment was added to a page or a discussion.",
      providerEvent: "comment.created",
      samplePayload: envelope(
        "c6bbb0f5-8d6a-4b3c-9e2f-1a0b9c8d7e6f",
        "comment.created",
        "2026-01-01T12:20:00.000Z",
        { id: "16c104cd-477e-8012-9a8b-7c6d5e4f3a2b", type: "comment" },
        { page_id: page.id, parent: { id: page.id, type: "page" } },
      ),
    },
  ],
});
