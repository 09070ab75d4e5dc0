/**
 * Greenhouse Recruiting through its Harvest API (`https://harvest.greenhouse.io/v1`): HTTP Basic with
 * a Harvest API key as the user name and an empty password. Harvest has no "who am I" call, so the
 * form also asks for the Greenhouse user id the key acts for (it is in the user's page URL), read
 * back with `GET /v1/users/{id}`.
 *
 * Greenhouse's webhooks are made by an admin in Greenhouse's own settings (Configure → Dev Center →
 * Web Hooks) with a secret key typed there; there is no API to create them for a connection. The
 * triggers are therefore polled: new applications and candidates, listed with `created_after` the
 * newest creation time seen (Harvest lists in ascending id order, so a poll that reads one page of
 * 500 resumes after its newest item next time; Harvest's Link-header paging is not needed).
 */
import { declareConnector } from "../../declaration.ts";

// https://developers.greenhouse.io/harvest.html#get-list-applications (abridged to its top-level members).
const sampleApplication = {
  id: 69306314,
  candidate_id: 57683957,
  prospect: false,
  applied_at: "2026-01-02T16:26:53.000Z",
  rejected_at: null,
  last_activity_at: "2026-01-02T16:26:54.000Z",
  location: { address: "New York, New York, USA" },
  source: { id: 2, public_name: "Jobs page on your website" },
  credited_to: { id: 4080, first_name: "Kate", last_name: "Austen", name: "Kate Austen", employee_id: "12345" },
  rejection_reason: null,
  rejection_details: null,
  jobs: [{ id: 107761, name: "UX Designer - Boston" }],
  job_post_id: 123,
  status: "active",
  current_stage: { id: 767358, name: "Application Review" },
  answers: [{ question: "How did you hear about this job?", answer: "A friend" }],
  prospective_office: null,
  prospective_department: null,
  prospect_detail: { prospect_pool: null, prospect_stage: null, prospect_owner: null },
  custom_fields: {},
  keyed_custom_fields: {},
  attachments: [],
};

// https://developers.greenhouse.io/harvest.html#get-list-candidates (abridged).
const sampleCandidate = {
  id: 53883394,
  first_name: "John",
  last_name: "Locke",
  company: "The Tustin Box Company",
  title: "Customer Success Representative",
  created_at: "2026-01-02T16:26:53.000Z",
  updated_at: "2026-01-02T16:26:53.000Z",
  last_activity: "2026-01-02T16:26:53.000Z",
  is_private: false,
  photo_url: null,
  attachments: [],
  application_ids: [69306314],
  phone_numbers: [{ value: "555-555-5555", type: "mobile" }],
  addresses: [],
  email_addresses: [{ value: "john.locke@example.com", type: "personal" }],
  website_addresses: [],
  social_media_addresses: [],
  recruiter: { id: 92120, first_name: "Greenhouse", last_name: "Admin", name: "Greenhouse Admin", employee_id: null },
  coordinator: null,
  can_email: true,
  tags: ["Walkabout"],
  custom_fields: {},
  keyed_custom_fields: {},
};

export default declareConnector({
  name: "greenhouse",
  displayName: "Greenhouse",
  category: "other",
  description: "Applications and candidates of a Greenhouse Recruiting account, through the Harvest API.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#24a47f"/>' +
    '<path d="M12 19v-7m0 0c0-3 2-5 5-5 0 3-2 5-5 5zm0 0c0-2.5-1.8-4.5-4.5-4.5 0 2.5 1.8 4.5 4.5 4.5z" stroke="#fff" stroke-width="1.6" fill="none" stroke-linecap="round"/></svg>',
  docs: [
    "https://developers.greenhouse.io/harvest.html#authentication",
    "https://developers.greenhouse.io/harvest.html#pagination",
    "https://developers.greenhouse.io/harvest.html#throttling",
    "https://developers.greenhouse.io/harvest.html#get-retrieve-user",
    "https://developers.greenhouse.io/harvest.html#get-list-applications",
    "https://developers.greenhouse.io/harvest.html#get-list-candidates",
    "https://developers.greenhouse.io/webhooks.html",
    "https://support.greenhouse.io/hc/en-us/articles/202842799-Create-an-API-key-in-Greenhouse-Recruiting",
  ],
  authMode: "BASIC",
  credentials: {
    fields: [
      {
        name: "api_key",
        label: "Harvest API key",
        help: "In Greenhouse, Configure → Dev Center → API Credential Management → Create new API key, type Harvest, with read access to Applications, Candidates and Users.",
        secret: true,
        pattern: "^[A-Za-z0-9-]{16,128}$",
        example: "f5b2a1c3d4e5f60718293a4b5c6d7e8f-1",
      },
      {
        name: "user_id",
        label: "Greenhouse user id",
        help: "The id of the Greenhouse user the key acts for: the number in that user's page address (Configure → Users).",
        secret: false,
        pattern: "^[0-9]{1,20}$",
        example: "4080",
      },
    ],
    whereToFind: "https://support.greenhouse.io/hc/en-us/articles/202842799-Create-an-API-key-in-Greenhouse-Recruiting",
    basic: { username: "{api_key}", password: "" },
    test: { method: "GET", path: "/v1/users/{user_id}", idPath: "id", displayNamePath: "name" },
  },
  api: { baseUrl: "https://harvest.greenhouse.io", auth: { style: "basic" } },
  triggers: [
    {
      name: "application_created",
      providerEvent: "applications.created",
      displayName: "Application created",
      description: "A candidate applied to a job, or a prospect was added (the Harvest application).",
      samplePayload: sampleApplication,
    },
    {
      name: "candidate_created",
      providerEvent: "candidates.created",
      displayName: "Candidate created",
      description: "A candidate or prospect was added (the Harvest candidate).",
      samplePayload: sampleCandidate,
    },
  ],
  polling: {
    // Harvest allows 50 requests per 10 seconds per key: one read a minute is far under it.
    triggers: {
      application_created: {
        request: { path: "/v1/applications", query: { per_page: "500", created_after: "{cursor}" } },
        id: "id",
        version: "applied_at",
        occurredAt: ["applied_at"],
        cursor: { from: "version" },
      },
      candidate_created: {
        request: { path: "/v1/candidates", query: { per_page: "500", created_after: "{cursor}" } },
        id: "id",
        version: "created_at",
        occurredAt: ["created_at"],
        cursor: { from: "version" },
      },
    },
  },
});
