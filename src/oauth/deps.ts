import type { Logger } from "pino";
import type { Config } from "../config.ts";
import type { SecretBox } from "../crypto/secrets.ts";
import type { Db } from "../db/database.ts";
import type { ClientCredentials } from "../credentials/clientCredentials.ts";

/** What the OAuth modules (connect sessions, stored accounts, token refresh) are built from. */
export interface OAuthDeps {
  config: Config;
  db: Db;
  box: SecretBox;
  logger: Logger;
}

/** The connect flow's and token refresh's: the above, and the OAuth client in force per deployment. */
export interface OAuthClientDeps extends OAuthDeps {
  clientCredentials: ClientCredentials;
}
