/**
 * OneDrive (personal, work or school) through Microsoft Graph, signed in like `microsoft`. One Graph
 * subscription per connection on the drive's root (`me/drive/root`: driveItem subscriptions are
 * allowed on a drive's root only, and only with `changeType: "updated"`); each notification makes
 * Switchyard read the drive's delta from where it stopped (microsoft/driveDelta.ts).
 */
import { declareConnector } from "../../declaration.ts";
import { readDriveDelta, startDriveDelta } from "../microsoft/driveDelta.ts";
import { graphApi, graphIdentity, graphOAuth, graphSubscription } from "../microsoft/graph.ts";
import { graphValidationToken } from "../microsoft/verification.ts";

// A driveItem as https://learn.microsoft.com/en-us/graph/api/driveitem-delta lists it.
export const sampleFile = {
  id: "01BYE5RZ6QN3ZWBTUFOFD3GSPGOHDJD36K",
  name: "Quarterly report.docx",
  createdDateTime: "2026-01-02T10:00:00Z",
  lastModifiedDateTime: "2026-01-02T10:00:00Z",
  eTag: '"{F9C6ED16-4D66-4F2B-8F4A-E6B1F3A0B3E2},1"',
  cTag: '"c:{F9C6ED16-4D66-4F2B-8F4A-E6B1F3A0B3E2},1"',
  size: 18742,
  webUrl: "https://contoso-my.sharepoint.com/personal/alice_contoso_com/Documents/Quarterly%20report.docx",
  file: { mimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", hashes: { quickXorHash: "8PsxJ0sjnxRkOadA5UHEsR1wGVM=" } },
  parentReference: { driveId: "b!-RIj2DuyvEyV1T4NlOaMHk8XkS_I8MdFlUCq1BlcjgmhRfAj3-Z8RY2VpuvV_tpd", driveType: "business", id: "01BYE5RZ56Y2GOVW7725BZO354PWSELRRZ", path: "/drive/root:" },
  createdBy: { user: { id: "a1b2c3d4-0000-4000-8000-000000000001", displayName: "Alice Example" } },
  lastModifiedBy: { user: { id: "a1b2c3d4-0000-4000-8000-000000000001", displayName: "Alice Example" } },
};

export const driveTriggers = (where: string) => [
  {
    name: "file_created",
    providerEvent: "driveItem.created",
    displayName: "File created",
    description: `A file was added to ${where} (the Graph driveItem as the drive's delta lists it).`,
    samplePayload: sampleFile,
  },
  {
    name: "file_updated",
    providerEvent: "driveItem.updated",
    displayName: "File updated",
    description: `A file in ${where} changed: its content, name or place (the driveItem as it is now).`,
    samplePayload: { ...sampleFile, lastModifiedDateTime: "2026-01-03T08:30:00Z", eTag: '"{F9C6ED16-4D66-4F2B-8F4A-E6B1F3A0B3E2},2"', cTag: '"c:{F9C6ED16-4D66-4F2B-8F4A-E6B1F3A0B3E2},2"' },
  },
  {
    name: "file_deleted",
    providerEvent: "driveItem.deleted",
    displayName: "File deleted",
    description: `A file was deleted from ${where} (its id and the deleted facet: it can no longer be read).`,
    samplePayload: { id: "01BYE5RZ6QN3ZWBTUFOFD3GSPGOHDJD36K", deleted: { state: "deleted" }, parentReference: sampleFile.parentReference },
  },
];

export const driveResourceTriggers = { file_created: ["updated"], file_updated: ["updated"], file_deleted: ["updated"] };

export default declareConnector({
  name: "onedrive",
  displayName: "OneDrive",
  category: "files",
  description: "Files created, changed and deleted in a user's OneDrive (personal, work or school).",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#0364b8"/>' +
    '<path d="M6.5 17a3.5 3.5 0 0 1-.3-7A5 5 0 0 1 15.6 9a4 4 0 0 1 1.9 8z" fill="#fff"/></svg>',
  docs: [
    "https://learn.microsoft.com/en-us/entra/identity-platform/v2-oauth2-auth-code-flow",
    "https://learn.microsoft.com/en-us/graph/permissions-reference",
    "https://learn.microsoft.com/en-us/graph/api/user-get",
    "https://learn.microsoft.com/en-us/graph/api/subscription-post-subscriptions",
    "https://learn.microsoft.com/en-us/graph/api/resources/subscription",
    "https://learn.microsoft.com/en-us/graph/change-notifications-delivery-webhooks",
    "https://learn.microsoft.com/en-us/graph/change-notifications-lifecycle-events",
    "https://learn.microsoft.com/en-us/onedrive/developer/rest-api/concepts/using-webhooks",
    "https://learn.microsoft.com/en-us/graph/api/driveitem-delta",
  ],
  oauth: graphOAuth({ "Files.Read": "Read your files" }),
  identity: graphIdentity,
  api: graphApi,
  handshakes: [graphValidationToken],
  subscription: graphSubscription({
    resources: [{ resource: "me/drive/root", triggers: driveResourceTriggers }],
    lifetimeSeconds: 4230 * 60,
  }),
  changes: { read: readDriveDelta, start: startDriveDelta },
  triggers: driveTriggers("the user's OneDrive"),
});
