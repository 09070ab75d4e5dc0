/**
 * Twilio REST API: HTTP Basic with the Account SID as user name and the Auth Token as password
 * (both on the Console dashboard). Checked with `GET /2010-04-01/Accounts/{AccountSid}.json`
 * (`sid`, `friendly_name`). The Account SID is not secret: it is kept with the connection and
 * names the account in API paths. Connect only for now (Twilio's webhooks are configured per
 * phone number or service, signed with X-Twilio-Signature).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "twilio",
  displayName: "Twilio",
  category: "other",
  description: "Send and read SMS, calls and phone numbers of a Twilio account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="12" fill="#f22f46"/><circle cx="12" cy="12" r="6" fill="none" stroke="#fff" stroke-width="1.6"/>' +
    '<circle cx="9.8" cy="9.8" r="1.3" fill="#fff"/><circle cx="14.2" cy="9.8" r="1.3" fill="#fff"/><circle cx="9.8" cy="14.2" r="1.3" fill="#fff"/><circle cx="14.2" cy="14.2" r="1.3" fill="#fff"/></svg>',
  docs: ["https://www.twilio.com/docs/iam/api", "https://www.twilio.com/docs/iam/api/account"],
  authMode: "BASIC",
  credentials: {
    fields: [
      {
        name: "account_sid",
        label: "Account SID",
        help: "On your Twilio Console dashboard, under Account Info: 34 characters starting with AC.",
        secret: false,
        pattern: "^AC[0-9a-fA-F]{32}$",
        example: "AC0123456789abcdef0123456789abcdef",
      },
      {
        name: "auth_token",
        label: "Auth Token",
        help: "On the same dashboard, under Account Info (press Show to reveal it).",
        secret: true,
        example: "0123456789abcdef0123456789abcdef",
      },
    ],
    whereToFind: "https://console.twilio.com/",
    apiUrl: "https://api.twilio.com",
    basic: { username: "{account_sid}", password: "{auth_token}" },
    test: { method: "GET", path: "/2010-04-01/Accounts/{account_sid}.json", idPath: "sid", displayNamePath: "friendly_name" },
  },
  api: { auth: { style: "basic" } },
});
