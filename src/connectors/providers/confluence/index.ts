/**
 * Confluence Cloud: Atlassian's OAuth 2.0 (3LO) like Jira — `audience=api.atlassian.com`,
 * `offline_access` for a rotating refresh token — and the Atlassian account as the identity (`GET /me`).
 * The site's cloud id is read from `accessible-resources` with the identity and is in every API path.
 * OAuth 2.0 apps register webhooks per site (expiring after 30 days), so pages are polled from the
 * v2 page list, most recently modified first (`read:page:confluence`; accounts connected before it
 * was asked must reconnect).
 */
import { declareConnector } from "../../declaration.ts";
import { atlassianIdentity, atlassianOAuth } from "../jira/atlassian.ts";

export default declareConnector({
  name: "confluence",
  displayName: "Confluence",
  category: "docs",
  description: "Read the spaces and pages of a Confluence Cloud site.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#1868db"/>' +
    '<path d="M8 5h6l3 3v11H8z" fill="none" stroke="#fff" stroke-width="1.8" stroke-linejoin="round"/><path d="M10 12h5M10 15h5" stroke="#fff" stroke-width="1.5" stroke-linecap="round"/></svg>',
  docs: [
    "https://developer.atlassian.com/cloud/confluence/oauth-2-3lo-apps/",
    "https://developer.atlassian.com/cloud/confluence/scopes-for-oauth-2-3LO-and-forge-apps/",
    "https://developer.atlassian.com/cloud/confluence/rest/v2/intro/",
    "https://developer.atlassian.com/cloud/confluence/rest/v2/api-group-page/#api-pages-get",
    "https://developer.atlassian.com/cloud/oauth/getting-started/making-calls-to-api/",
  ],
  oauth: atlassianOAuth({
    "read:confluence-space.summary": "Read a summary of your Confluence spaces",
    "read:confluence-content.summary": "Read a summary of your Confluence pages and blog posts",
    "read:page:confluence": "Read your Confluence pages",
  }),
  identity: atlassianIdentity,
  // Calls go through the gateway with the site's cloud id: the first site, unless the
  // connection's params name another cloudId.
  api: { baseUrl: "https://api.atlassian.com", connectionBaseUrl: "{baseUrl}/ex/confluence/{cloudId}", placeholders: { cloudId: "sites[].cloudId" } },
  triggers: [
    {
      name: "page_updated",
      displayName: "Page created or updated",
      description: "A page was published or edited on the site (read from the page list on a schedule).",
      providerEvent: "GET /wiki/api/v2/pages",
      // One page as the v2 page list answers it.
      samplePayload: {
        id: "65868",
        status: "current",
        title: "Team meeting notes",
        spaceId: "65538",
        parentId: "65539",
        parentType: "page",
        position: 1,
        authorId: "5b10ac8d82e05b22cc7d4ef5",
        ownerId: "5b10ac8d82e05b22cc7d4ef5",
        lastOwnerId: null,
        createdAt: "2026-01-01T09:00:00.000Z",
        version: { createdAt: "2026-01-01T10:00:00.000Z", message: "", number: 2, minorEdit: false, authorId: "5b10ac8d82e05b22cc7d4ef5" },
        body: {},
        _links: { webui: "/spaces/TEAM/pages/65868/Team+meeting+notes", editui: "/pages/resumedraft.action?draftId=65868", tinyui: "/x/zAAB" },
      },
    },
  ],
  polling: {
    triggers: {
      // Most recently modified first; the version's time moves with every edit.
      page_updated: {
        request: { path: "/wiki/api/v2/pages", query: { sort: "-modified-date", limit: "100" } },
        items: "results",
        id: "id",
        version: "version.createdAt",
        occurredAt: ["version.createdAt"],
        cursor: { from: "version" },
      },
    },
  },
});
