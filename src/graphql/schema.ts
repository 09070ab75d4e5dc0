// Imports only: each file adds its types to the builder.
import { builder } from "./builder.ts";
import "./types/user.ts";
import "./types/organization.ts";
import "./types/deployment.ts";
import "./types/dataItem.ts";
import "./types/connectors.ts";
import "./types/providerSubscriptions.ts";
import "./types/pollingHealth.ts";
import "./types/watchedResources.ts";
import "./types/subscriptions.ts";
import "./types/forwarding.ts";
import "./types/connectSettings.ts";
import "./types/deliveryOperations.ts";

export const schema = builder.toSchema({ sortSchema: false });
