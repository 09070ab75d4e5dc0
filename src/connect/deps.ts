import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { SecretBox } from "../crypto/secrets.ts";
import type { Db } from "../db/database.ts";
import type { ClientCredentials } from "../credentials/clientCredentials.ts";

/** What the connect flow (its sessions, pages and callbacks) is built from. */
export interface OAuthDeps {
  config: Config;
  db: Db;
  box: SecretBox;
  logger: Logger;
  /** Decides when a connect link has expired, and stamps what a completed flow stores. */
  clock: Clock;
}

/** The connect flow's pages and callbacks: the above, and the OAuth client (or app) in force per deployment. */
export interface OAuthClientDeps extends OAuthDeps {
  clientCredentials: ClientCredentials;
}
