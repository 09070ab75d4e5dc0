import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { AcceptInvitation, createOperator, InviteMember, invitationToken, joinByInvitation, type Operator, SignUp } from "../helpers/operators.ts";
import { everyone, type Who } from "../helpers/tenancy.ts";
import { type Caller, errorCode, type GraphQLResult, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * The invitation operations as each kind of caller. An invitation belongs to two parties: the
 * organization's owners and admins (invite, list, revoke) and the person it was sent to (see it,
 * accept it with its link, decline it). Here every invitation is sent to `otherUser`'s address,
 * into the owner's organization: the other user is the invitee, the owner's member a bystander.
 */

const Q = {
  decline: graphql(`mutation TInvDecline($id: ID!) { declineInvitation(id: $id) }`),
  revoke: graphql(`mutation TInvRevoke($id: ID!) { revokeInvitation(id: $id) }`),
  preview: graphql(`query TInvPreview($token: String!) { invitation(token: $token) { email organizationName } }`),
  list: graphql(`query TInvList($org: ID!) { organization(id: $org) { invitations { id } } }`),
  membersInvitations: graphql(`query TInvMembersInvitations($org: ID!) { organization(id: $org) { members { user { email invitations { id } } } } }`),
  mine: graphql(`query TInvMine { viewer { invitations { id organizationName } } }`),
};

let app: TestApp;
let owner: Operator;
let other: Operator;
let callers: Record<Who, Caller>;

beforeAll(async () => {
  app = await startTestApp();
  owner = await createOperator(app, "Owner");
  other = await createOperator(app, "Other");
  const email = `member-${randomBytes(4).toString("hex")}@example.com`;
  const member = { email, token: ok(await app.gql(SignUp, { email, password: "a fine password", name: "M" })).signUp.token };
  await joinByInvitation(app.gql, owner.token, owner.organizationId, member);
  callers = {
    owner: { token: owner.token },
    member: { token: member.token },
    ownKey: { apiKey: owner.apiKey },
    otherUser: { token: other.token },
    otherKey: { apiKey: other.apiKey },
    nobody: {},
  };
});
afterAll(() => app.close());

/** A fresh invitation to the other user's address, into a fresh organization of the owner (so accepting can repeat). */
async function invitationForOther(organizationId = owner.organizationId): Promise<{ id: string; token: string }> {
  const invited = ok(await app.gql(InviteMember, { organizationId, email: other.email, role: "MEMBER" }, { token: owner.token })).inviteMember;
  if (invited.__typename !== "Invitation") throw new Error("not an invitation");
  return { id: invited.id, token: invitationToken(invited.acceptUrl) };
}
const CreateOrganization = graphql(`mutation TInvNewOrganization { createOrganization(name: "Another") { id } }`);
const freshOrganization = async () => ok(await app.gql(CreateOrganization, {}, { token: owner.token })).createOrganization.id;

type Outcome = "OK" | "UNAUTHENTICATED" | "FORBIDDEN" | "NOT_FOUND" | "NULL";
type Row = [string, (caller: Caller) => Promise<GraphQLResult<unknown>>, Record<Who, Outcome>];
const rows: Row[] = [
  [
    "inviteMember",
    (c) => app.gql(InviteMember, { organizationId: owner.organizationId, email: `t-${randomBytes(4).toString("hex")}@example.com`, role: "MEMBER" }, c),
    { owner: "OK", member: "FORBIDDEN", ownKey: "FORBIDDEN", otherUser: "FORBIDDEN", otherKey: "FORBIDDEN", nobody: "UNAUTHENTICATED" },
  ],
  [
    "organization.invitations",
    (c) => app.gql(Q.list, { org: owner.organizationId }, c),
    { owner: "OK", member: "FORBIDDEN", ownKey: "FORBIDDEN", otherUser: "FORBIDDEN", otherKey: "FORBIDDEN", nobody: "UNAUTHENTICATED" },
  ],
  [
    "revokeInvitation",
    async (c) => app.gql(Q.revoke, { id: (await invitationForOther()).id }, c),
    // The invitee may decline but not revoke: revoking is the organization's.
    { owner: "OK", member: "FORBIDDEN", ownKey: "NOT_FOUND", otherUser: "NOT_FOUND", otherKey: "NOT_FOUND", nobody: "UNAUTHENTICATED" },
  ],
  [
    "declineInvitation",
    async (c) => app.gql(Q.decline, { id: (await invitationForOther()).id }, c),
    { owner: "NOT_FOUND", member: "NOT_FOUND", ownKey: "FORBIDDEN", otherUser: "OK", otherKey: "FORBIDDEN", nobody: "UNAUTHENTICATED" },
  ],
  [
    "acceptInvitation",
    async (c) => app.gql(AcceptInvitation, { token: (await invitationForOther(await freshOrganization())).token }, c),
    { owner: "FORBIDDEN", member: "FORBIDDEN", ownKey: "FORBIDDEN", otherUser: "OK", otherKey: "FORBIDDEN", nobody: "UNAUTHENTICATED" },
  ],
  [
    "invitation(token): whoever holds the link",
    async (c) => app.gql(Q.preview, { token: (await invitationForOther()).token }, c),
    { owner: "OK", member: "OK", ownKey: "OK", otherUser: "OK", otherKey: "OK", nobody: "OK" },
  ],
  [
    "invitation(token) without the link",
    async (c) => app.gql(Q.preview, { token: `sy_inv_${randomBytes(32).toString("base64url")}` }, c),
    { owner: "NULL", member: "NULL", ownKey: "NULL", otherUser: "NULL", otherKey: "NULL", nobody: "NULL" },
  ],
  [
    "User.invitations of someone else (through members)",
    (c) => app.gql(Q.membersInvitations, { org: owner.organizationId }, c),
    { owner: "FORBIDDEN", member: "FORBIDDEN", ownKey: "FORBIDDEN", otherUser: "FORBIDDEN", otherKey: "FORBIDDEN", nobody: "UNAUTHENTICATED" },
  ],
];

describe.each(rows)("%s", (_name, run, outcomes) => {
  test.each(everyone)("as %s", async (who) => {
    const result = await run(callers[who]);
    const expected = outcomes[who];
    if (expected === "OK") {
      expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
      expect(Object.values(result.data ?? {})[0]).not.toBeNull();
    } else if (expected === "NULL") {
      expect(result.errors).toBeUndefined();
      expect(Object.values(result.data ?? {})[0]).toBeNull();
    } else {
      expect(errorCode(result)).toBe(expected);
    }
  });
});

test("viewer.invitations lists only invitations sent to the viewer's own address", async () => {
  const { id } = await invitationForOther();
  const mine = (who: Who) => app.gql(Q.mine, {}, callers[who]);
  expect(ok(await mine("otherUser")).viewer!.invitations.map((i) => i.id)).toContain(id);
  for (const who of ["owner", "member"] as const) expect(ok(await mine(who)).viewer!.invitations.map((i) => i.id)).not.toContain(id);
  // Keys and nobody have no viewer at all.
  for (const who of ["ownKey", "otherKey", "nobody"] as const) expect(ok(await mine(who)).viewer).toBeNull();
});
