/**
 * RingCentral: OAuth 2.0 authorization code (the app's permissions are set in the developer
 * console, not requested), HTTP Basic client authentication, PKCE supported; one-hour access tokens and
 * week-long refresh tokens. The identity is the authorizing extension (`GET
 * /restapi/v1.0/account/~/extension/~`). Connect only: RingCentral push notifications are subscriptions
 * each account's token creates (per-account).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "ringcentral",
  displayName: "RingCentral",
  category: "other",
  description: "Read the call log, messages and extensions of a RingCentral account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#ff7a00"/>' +
    '<path d="M8 5l2.5 3-1.7 2a9 9 0 0 0 5.2 5.2l2-1.7 3 2.5-1.5 2.5C12 18.5 5.5 12 5.5 6.5z" fill="none" stroke="#fff" stroke-width="1.6" stroke-linejoin="round"/></svg>',
  docs: [
    "https://developers.ringcentral.com/guide/authentication/auth-code-flow",
    "https://developers.ringcentral.com/api-reference/Extensions/readExtension",
    "https://developers.ringcentral.com/guide/notifications/webhooks/creating-webhooks",
  ],
  oauth: {
    authorizeUrl: "https://platform.ringcentral.com/restapi/oauth/authorize",
    tokenUrl: "https://platform.ringcentral.com/restapi/oauth/token",
    apiUrl: "https://platform.ringcentral.com",
    scopes: [],
    pkce: true,
    clientAuth: "client_secret_basic",
    refresh: true,
  },
  identity: {
    path: "/restapi/v1.0/account/~/extension/~",
    idPath: "id",
    displayNamePath: "name",
    metadata: { accountId: "account.id", extensionNumber: "extensionNumber" },
  },
});
