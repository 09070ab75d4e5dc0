import { type CredentialsDeclaration, wireApiKey, wireBasic } from "../../connectors/credentials.ts";
import type { ConnectorDefinition } from "../../connectors/types.ts";
import { type AuthModeStrategy, listed, neverRenewed } from "./strategy.ts";

/**
 * API key and Basic: the end user types what the connector declares into our form, checked with the
 * provider before anything is kept. Nothing to configure (the end user brings the key) and nothing
 * to renew.
 */
function keyed(mode: "API_KEY" | "BASIC", tokenType: "ApiKey" | "Basic", wire: AuthModeStrategy["wireCredential"]): AuthModeStrategy {
  const fields = (def: ConnectorDefinition): CredentialsDeclaration => def.declaration.credentials!;
  const labels = (def: ConnectorDefinition) => fields(def).fields.map((field) => field.label);
  return {
    mode,
    tokenType,
    connect: "credentials",
    credentialFields: fields,
    wireCredential: wire,
    canConnect: () => true,
    clientLabel: "OAuth client",
    serviceVariables: ["CLIENT_ID", "CLIENT_SECRET"],
    operatorClient: "oauthClient",
    connectNote: (def) => `You will enter your ${listed(labels(def))}, which are checked with ${def.displayName} before anything is kept.`,
    consentItems: (def) => [`Everything the ${listed(labels(def))} you enter next give access to at ${def.displayName}`],
    renewable: () => false,
    renew: neverRenewed(mode),
  };
}

/** An API key (sent in the connector's declared style); GET …/token calls it "ApiKey". */
export const apiKey = keyed("API_KEY", "ApiKey", wireApiKey);
/** HTTP Basic (RFC 7617): the stored credential is `base64(user:password)`; GET …/token calls it "Basic". */
export const basic = keyed("BASIC", "Basic", wireBasic);
