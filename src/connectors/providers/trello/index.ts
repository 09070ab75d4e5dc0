/**
 * Trello: Trello's authorize page hands the end user's token back in the URL fragment (no code to
 * exchange), so a connection is made from two values pasted on the connect form: the API key of
 * the operator's Power-Up (public: it is part of every authorize URL) and the token the user
 * authorized for it. Both go on every call as `Authorization: OAuth oauth_consumer_key="<key>",
 * oauth_token="<token>"`, checked with `GET /1/members/me`.
 *
 * Per connection Switchyard makes one webhook with that token (`POST /1/webhooks` with
 * `callbackURL`, `idModel`, `description`), watching the board the connection's `board` param
 * names, else everything the member sees (idModel = the member id). Trello first sends a HEAD to
 * the callback URL (answered 200), then POSTs `{action, model}` signed `X-Trello-Webhook` =
 * base64 HMAC-SHA1 of the body followed by the callback URL, keyed by the Power-Up's secret: the
 * connector's webhook secret. Deleted with `DELETE /1/webhooks/{id}`, looked up with
 * `GET /1/webhooks/{id}`; Trello webhooks do not expire.
 */
import { declareConnector } from "../../declaration.ts";
import { trelloHead } from "./verification.ts";

const member = { id: "5e8a3c2b1f0d4a0012345678", fullName: "Ada Example", username: "adaexample", initials: "AE" };
const board = { id: "5f1b2c3d4e5f6a7b8c9d0e1f", name: "Launch plan", shortLink: "AbCd1234" };
const card = { id: "60a1b2c3d4e5f6a7b8c9d0e2", name: "Write the release notes", idShort: 12, shortLink: "XyZ98765" };
const todo = { id: "5f1b2c3d4e5f6a7b8c9d0e20", name: "To do" };
const doing = { id: "5f1b2c3d4e5f6a7b8c9d0e21", name: "Doing" };
const payload = (id: string, type: string, data: Record<string, unknown>, date: string) => ({
  action: { id, idMemberCreator: member.id, type, date, data: { board, ...data }, memberCreator: member },
  model: { id: board.id, name: board.name },
});
const signature = { type: "hmac", header: "x-trello-webhook", algorithm: "sha1", encoding: "base64", signedContent: "{body}{url}" } as const;

export default declareConnector({
  name: "trello",
  displayName: "Trello",
  category: "project_management",
  description: "Cards created, changed and moved, and comments added, on a Trello member's boards.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#0c66e4"/>' +
    '<rect x="5" y="5" width="6" height="13" rx="1.3" fill="#fff"/><rect x="13" y="5" width="6" height="8" rx="1.3" fill="#fff"/></svg>',
  docs: [
    "https://developer.atlassian.com/cloud/trello/guides/rest-api/authorization/",
    "https://developer.atlassian.com/cloud/trello/rest/api-group-members/#api-members-id-get",
    "https://developer.atlassian.com/cloud/trello/guides/rest-api/webhooks/",
    "https://developer.atlassian.com/cloud/trello/rest/api-group-webhooks/",
    "https://developer.atlassian.com/cloud/trello/guides/rest-api/action-types/",
  ],
  params: [
    {
      name: "board",
      description: "the id of the Trello board to watch (without it, every board the member sees)",
      pattern: "^[0-9a-f]{24}$",
      example: "5f1b2c3d4e5f6a7b8c9d0e1f",
      in: "path",
      optional: true,
    },
  ],
  authMode: "API_KEY",
  credentials: {
    fields: [
      {
        name: "api_key",
        label: "API key",
        help: "The API key of this service's Trello Power-Up, as your administrator gave it to you (32 hexadecimal characters).",
        secret: false,
        pattern: "^[0-9a-f]{32}$",
        example: "0123456789abcdef0123456789abcdef",
      },
      {
        name: "token",
        label: "Token",
        help: "Open https://trello.com/1/authorize?expiration=never&scope=read&response_type=token&key=<the API key>, allow access and paste the token Trello shows.",
        secret: true,
        pattern: "^[A-Za-z0-9]{32,128}$",
        example: "ATTA0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef01234567",
      },
    ],
    whereToFind: "https://developer.atlassian.com/cloud/trello/guides/rest-api/authorization/",
    // The documented header form of the key and token: neither ends up in a URL (or a log line).
    keyTemplate: 'oauth_consumer_key="{api_key}", oauth_token="{token}"',
    test: { method: "GET", path: "/members/me", idPath: "id", displayNamePath: "fullName" },
  },
  api: { baseUrl: "https://api.trello.com/1", auth: { style: "header", header: "authorization", prefix: "OAuth " } },
  handshakes: [trelloHead],
  webhook: {
    scheme: signature,
    event: { path: "action.type" },
    // Who acted; a connection's webhook delivers its board's (or member's) actions whoever that is.
    routing: ["action.idMemberCreator"],
    deliveryId: { paths: ["action.id"] },
    occurredAt: ["action.date"],
  },
  subscription: {
    resources: [
      {
        resource: "",
        triggers: { card_created: ["createCard"], card_moved: ["updateCard"], card_updated: ["updateCard"], comment_added: ["commentCard"] },
      },
    ],
    // Trello sends every action on the model; the ones no listed trigger names are dropped here.
    create: { method: "POST", path: "/webhooks", body: { callbackURL: "{subscriptionUrl}", idModel: "{board|externalId}", description: "Switchyard" } },
    delete: { method: "DELETE", path: "/webhooks/{providerId}" },
    check: { method: "GET", path: "/webhooks/{providerId}", everySeconds: 6 * 60 * 60 },
    answer: { idPath: "id" },
    // Trello webhooks do not expire; the lifetime is only what a re-creation would ask for.
    lifetimeSeconds: 365 * 24 * 60 * 60,
    secret: "none",
    webhook: { key: "webhook_secret", keep: "all" },
  },
  triggers: [
    {
      name: "card_created",
      displayName: "Card created",
      description: "A card was added to a watched board: Trello's `createCard` action and the watched model.",
      providerEvent: "createCard",
      samplePayload: payload("61a0000000000000000000a1", "createCard", { card, list: todo }, "2026-01-01T10:00:00.000Z"),
    },
    {
      name: "card_moved",
      displayName: "Card moved to another list",
      description: "A card was moved between lists (`updateCard` with `listBefore` and `listAfter`).",
      providerEvent: "updateCard",
      when: { present: ["action.data.listAfter"] },
      samplePayload: payload("61a0000000000000000000a2", "updateCard", { card: { ...card, idList: doing.id }, old: { idList: todo.id }, listBefore: todo, listAfter: doing }, "2026-01-01T11:00:00.000Z"),
    },
    {
      name: "card_updated",
      displayName: "Card changed",
      description: "A card's name, description, due date or other field changed (`updateCard`; `old` holds the previous values). Moves are `card_moved`.",
      providerEvent: "updateCard",
      samplePayload: payload("61a0000000000000000000a3", "updateCard", { card: { ...card, due: "2026-01-09T17:00:00.000Z" }, old: { due: null }, list: todo }, "2026-01-01T12:00:00.000Z"),
    },
    {
      name: "comment_added",
      displayName: "Comment added",
      description: "Someone commented on a card (`commentCard`; the text in `data.text`).",
      providerEvent: "commentCard",
      samplePayload: payload("61a0000000000000000000a4", "commentCard", { card, list: todo, text: "Draft is in the doc." }, "2026-01-01T13:00:00.000Z"),
    },
  ],
});
