/**
 * SharePoint document libraries through Microsoft Graph, signed in like `microsoft` (work or school
 * accounts). The connection names the site (`params[site_id]`, the site's id as Graph answers it
 * at GET /sites/{hostname}:/{path}); Switchyard keeps one Graph subscription on that site's default
 * document library (`sites/{site_id}/drive/root`) and reads its delta on every notification, as
 * `onedrive` does (microsoft/driveDelta.ts).
 */
import { declareConnector } from "../../declaration.ts";
import { readDriveDelta, startDriveDelta } from "../microsoft/driveDelta.ts";
import { graphApi, graphIdentity, graphOAuth, graphSubscription } from "../microsoft/graph.ts";
import { graphValidationToken } from "../microsoft/verification.ts";
import { driveResourceTriggers, driveTriggers } from "../onedrive/index.ts";

export default declareConnector({
  name: "sharepoint",
  displayName: "SharePoint",
  category: "files",
  description: "Files created, changed and deleted in a SharePoint site's document library.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#036c70"/>' +
    '<circle cx="10" cy="10" r="5" fill="#1a9ba1"/><circle cx="15" cy="14" r="4" fill="#37c6d0"/>' +
    '<path d="M11.5 8.2a2 2 0 1 0-2 3.3 2 2 0 1 1-2 3.3" stroke="#fff" stroke-width="1.5" fill="none" stroke-linecap="round"/></svg>',
  docs: [
    "https://learn.microsoft.com/en-us/entra/identity-platform/v2-oauth2-auth-code-flow",
    "https://learn.microsoft.com/en-us/graph/permissions-reference",
    "https://learn.microsoft.com/en-us/graph/api/site-get",
    "https://learn.microsoft.com/en-us/graph/api/drive-get",
    "https://learn.microsoft.com/en-us/graph/api/subscription-post-subscriptions",
    "https://learn.microsoft.com/en-us/graph/api/resources/subscription",
    "https://learn.microsoft.com/en-us/graph/change-notifications-delivery-webhooks",
    "https://learn.microsoft.com/en-us/graph/change-notifications-lifecycle-events",
    "https://learn.microsoft.com/en-us/graph/api/driveitem-delta",
  ],
  params: [
    {
      name: "site_id",
      description: "The SharePoint site's id (the GUID Graph answers as the middle part of the site's id at GET /sites/{hostname}:/sites/{name}).",
      pattern: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
      example: "2c712604-1370-44e7-a1f5-426573fda80a",
      // Names what the subscription watches (sites/{site_id}/drive/root), never Graph's host.
      in: "path",
    },
  ],
  oauth: graphOAuth({ "Sites.Read.All": "Read the SharePoint sites you can open" }),
  identity: graphIdentity,
  api: { ...graphApi, placeholders: { site_id: "site_id" } },
  handshakes: [graphValidationToken],
  subscription: graphSubscription({
    resources: [{ resource: "site/drive/root", triggers: driveResourceTriggers }],
    resource: "sites/{site_id}/drive/root",
    lifetimeSeconds: 4230 * 60,
  }),
  changes: { read: readDriveDelta, start: startDriveDelta },
  triggers: driveTriggers("the site's document library"),
});
