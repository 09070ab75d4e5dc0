/**
 * Dropbox: OAuth 2.0 with PKCE and scoped apps; `token_access_type=offline` for a refresh token.
 * File triggers from the app's webhook (one URI per app, set in the App Console): a notification
 * only lists the accounts whose files changed; each account's changes are then read from
 * `files/list_folder/continue` with its own token (events.ts beside this file).
 */
import { declareConnector } from "../../declaration.ts";
import { parseDropboxNotification, readDropboxChanges, startDropboxChanges, type DropboxEntryData } from "./events.ts";
import { dropboxChallenge } from "./verification.ts";

const sampleFile: DropboxEntryData = {
  account_id: "dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc",
  tag: "file",
  id: "id:a4ayc_80_OEAAAAAAAAAXw",
  name: "Prime_Numbers.txt",
  path_lower: "/homework/math/prime_numbers.txt",
  path_display: "/Homework/math/Prime_Numbers.txt",
  rev: "a1c10ce0dd78",
  size: 7212,
  client_modified: "2015-05-12T15:50:38Z",
  server_modified: "2015-05-12T15:50:38Z",
  content_hash: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
};
const noFile = { rev: null, size: null, client_modified: null, server_modified: null, content_hash: null };

export default declareConnector({
  name: "dropbox",
  displayName: "Dropbox",
  category: "files",
  description: "Files and folders added, changed or deleted in a Dropbox account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#0061fe"/>' +
    '<path d="M8 5 4 7.5 8 10l4-2.5zM16 5l-4 2.5 4 2.5 4-2.5zM8 10l-4 2.5L8 15l4-2.5zM16 10l-4 2.5 4 2.5 4-2.5zM8 16l4 2.5 4-2.5-4-2.5z" fill="#fff"/></svg>',
  docs: [
    "https://www.dropbox.com/developers/documentation/http/documentation#auth-token-revoke",
    "https://developers.dropbox.com/oauth-guide",
    "https://www.dropbox.com/developers/documentation/http/documentation#oauth2-authorize",
    "https://www.dropbox.com/developers/documentation/http/documentation#users-get_current_account",
    "https://www.dropbox.com/developers/reference/webhooks",
    "https://www.dropbox.com/developers/documentation/http/documentation#files-list_folder-get_latest_cursor",
    "https://www.dropbox.com/developers/documentation/http/documentation#files-list_folder-continue",
  ],
  oauth: {
    authorizeUrl: "https://www.dropbox.com/oauth2/authorize",
    tokenUrl: "https://api.dropboxapi.com/oauth2/token",
    scopes: ["account_info.read", "files.metadata.read"],
    scopeDescriptions: {
      "account_info.read": "View your Dropbox account information",
      "files.metadata.read": "View information about your Dropbox files and folders",
    },
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "client_secret_basic",
    extraAuthorizeParams: { token_access_type: "offline" },
    refresh: true,
    // auth/token/revoke: an RPC endpoint without arguments, authenticated by the token itself (no
    // body, no Content-Type); it disables that token, its refresh token and the refresh token's other access tokens.
    revocation: { url: "https://api.dropboxapi.com/2/auth/token/revoke", method: "POST", body: "none", clientAuth: "bearer_token" },
  },
  // An RPC endpoint: a POST, sent without a body as in Dropbox's own curl example.
  identity: {
    path: "/users/get_current_account",
    method: "POST",
    idPath: "account_id",
    displayNamePath: "name.display_name",
    metadata: { email: "email", country: "country" },
  },
  api: { baseUrl: "https://api.dropboxapi.com/2" },
  // The app's one webhook URI is this deployment's Dropbox webhook URL; its secret is the app
  // secret (the OAuth client secret): Dropbox signs X-Dropbox-Signature with it. The URI is verified
  // with a GET ?challenge=…, echoed as text/plain with X-Content-Type-Options: nosniff.
  handshakes: [dropboxChallenge],
  webhook: {
    delivery: "push",
    scheme: { type: "hmac", header: "x-dropbox-signature", algorithm: "sha256", encoding: "hex" },
    // Answered at once (Dropbox waits 10 s); each named account is read by the poller right after.
    reads: "queued",
    parse: parseDropboxNotification,
  },
  // The account's changes over its whole Dropbox, from its latest cursor when it connected: the
  // first change after connecting is read.
  changes: { read: readDropboxChanges, start: startDropboxChanges },
  triggers: [
    {
      name: "file_changed",
      providerEvent: "file",
      displayName: "File added or changed",
      description: "A file was added, changed, or moved or renamed (list_folder/continue returned it with a new rev).",
      samplePayload: { ...sampleFile },
    },
    {
      name: "folder_created",
      providerEvent: "folder",
      displayName: "Folder created",
      description: "A folder was created, or moved or renamed to a new path.",
      samplePayload: {
        ...sampleFile,
        ...noFile,
        tag: "folder",
        id: "id:a4ayc_80_OEAAAAAAAAAXz",
        name: "math",
        path_lower: "/homework/math",
        path_display: "/Homework/math",
      },
    },
    {
      name: "file_deleted",
      providerEvent: "deleted",
      displayName: "File or folder deleted",
      description: "A file or folder was deleted (Dropbox's deleted entries do not say which, and carry no id).",
      samplePayload: { ...sampleFile, ...noFile, tag: "deleted", id: null },
    },
  ],
});
