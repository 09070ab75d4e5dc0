import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { fakeClock } from "../helpers/clock.ts";
import { AcceptInvitation, createOperator, InviteMember, invitationToken, joinByInvitation, type Operator, SignUp } from "../helpers/operators.ts";
import { errorCode, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * Joining an organization takes the invited person's consent: an invitation is a link with a
 * secret, accepted (or declined) by whoever is logged in with the invited address. Inviting says
 * nothing about whether an address has an account. Sign-up is open here (the development default).
 */

const AddMember = graphql(`
  mutation InvAddMember($org: ID!, $email: String!, $role: Role!) {
    addMember(organizationId: $org, email: $email, role: $role) { __typename id email role createdAt expiresAt organizationName acceptUrl }
  }
`);
const InviteShape = graphql(`
  mutation InvInviteShape($org: ID!, $email: String!) {
    inviteMember(organizationId: $org, email: $email, role: MEMBER) {
      __typename
      ... on Invitation { id email role createdAt expiresAt organizationName acceptUrl invitedBy { email } }
      ... on Membership { id role user { email } }
    }
  }
`);
const MyInvitations = graphql(`query InvMine { viewer { email invitations { id email role organizationName acceptUrl invitedBy { name } } } }`);
const Organizations = graphql(`query InvOrganizations { organizations { id viewerRole } }`);
const Decline = graphql(`mutation InvDecline($id: ID!) { declineInvitation(id: $id) }`);
const Revoke = graphql(`mutation InvRevoke($id: ID!) { revokeInvitation(id: $id) }`);
const Preview = graphql(`query InvPreview($token: String!) { invitation(token: $token) { email role organizationName acceptUrl invitedBy { name } } }`);
const Pending = graphql(`query InvPending($org: ID!) { organization(id: $org) { invitations { email role } } }`);
const SignUpThrough = graphql(`
  mutation InvSignUpThrough($email: String!, $token: String) {
    signUp(email: $email, password: "a fine password", name: "Someone", invitationToken: $token) { token }
  }
`);

let app: TestApp;
let owner: Operator;
beforeAll(async () => {
  app = await startTestApp();
  owner = await createOperator(app, "Owner");
});
afterAll(() => app.close());

/** An answer with what differs per address (ids, the address, times, the link) replaced by its type. */
const shape = (answer: object) => JSON.stringify(answer, (key, value) => (["id", "email", "createdAt", "expiresAt", "acceptUrl"].includes(key) ? typeof value : value));
const address = (prefix: string) => `${prefix}-${randomBytes(4).toString("hex")}@example.com`;
async function newUser(email = address("user")) {
  return { email, token: ok(await app.gql(SignUp, { email, password: "a fine password", name: "Someone" })).signUp.token };
}
const invite = async (email: string, role: "OWNER" | "ADMIN" | "MEMBER" = "MEMBER", by = owner.token) => {
  const invited = ok(await app.gql(InviteMember, { organizationId: owner.organizationId, email, role }, { token: by })).inviteMember;
  if (invited.__typename !== "Invitation") throw new Error("not an invitation");
  return { id: invited.id, token: invitationToken(invited.acceptUrl) };
};

test("inviting someone who has an account adds nobody until they accept, and answers exactly as for an unknown address", async () => {
  const known = await newUser();
  const unknownEmail = address("nobody");
  const forKnown = ok(await app.gql(InviteShape, { org: owner.organizationId, email: known.email }, { token: owner.token })).inviteMember;
  const forUnknown = ok(await app.gql(InviteShape, { org: owner.organizationId, email: unknownEmail }, { token: owner.token })).inviteMember;
  expect(forKnown.__typename).toBe("Invitation");
  expect(shape(forKnown)).toBe(shape(forUnknown));
  // The deprecated addMember answers the same way for both, with the link too.
  const another = await newUser();
  const addKnown = ok(await app.gql(AddMember, { org: owner.organizationId, email: another.email, role: "MEMBER" }, { token: owner.token })).addMember;
  const addUnknown = ok(await app.gql(AddMember, { org: owner.organizationId, email: address("nobody"), role: "MEMBER" }, { token: owner.token })).addMember;
  expect(shape(addKnown)).toBe(shape(addUnknown));
  expect(addKnown.acceptUrl).toMatch(/\/console\/invitations\/sy_inv_/);

  // Not a member yet: the invitation waits for them, listed on their own account.
  expect(ok(await app.gql(Organizations, {}, { token: known.token })).organizations).toEqual([]);
  const mine = ok(await app.gql(MyInvitations, {}, { token: known.token })).viewer!.invitations;
  expect(mine).toEqual([{ id: (forKnown as { id: string }).id, email: known.email, role: "MEMBER", organizationName: "Owner's org", acceptUrl: null, invitedBy: { name: "Owner" } }]);

  const link = invitationToken((forKnown as { acceptUrl: string }).acceptUrl);
  ok(await app.gql(AcceptInvitation, { token: link }, { token: known.token }));
  expect(ok(await app.gql(Organizations, {}, { token: known.token })).organizations).toEqual([{ id: owner.organizationId, viewerRole: "MEMBER" }]);
  expect(ok(await app.gql(MyInvitations, {}, { token: known.token })).viewer!.invitations).toEqual([]);
  expect(errorCode(await app.gql(AcceptInvitation, { token: link }, { token: known.token }))).toBe("NOT_FOUND");
});

test("accepting needs both the link and the invited address", async () => {
  const invitee = await newUser();
  const bystander = await newUser();
  const { token } = await invite(invitee.email, "ADMIN");
  const wrongPerson = await app.gql(AcceptInvitation, { token }, { token: bystander.token });
  expect(errorCode(wrongPerson)).toBe("FORBIDDEN");
  expect(wrongPerson.errors?.[0].message).toMatch(/different email address/);
  expect(errorCode(await app.gql(AcceptInvitation, { token: `sy_inv_${randomBytes(32).toString("base64url")}` }, { token: invitee.token }))).toBe("NOT_FOUND");
  expect(errorCode(await app.gql(AcceptInvitation, { token: "" }, { token: invitee.token }))).toBe("NOT_FOUND");
  expect(ok(await app.gql(Organizations, {}, { token: bystander.token })).organizations).toEqual([]);
  ok(await app.gql(AcceptInvitation, { token }, { token: invitee.token }));
  expect(ok(await app.gql(Organizations, {}, { token: invitee.token })).organizations).toEqual([{ id: owner.organizationId, viewerRole: "ADMIN" }]);
});

test("with sign-up open, signing up with a pending invitee's address does not take the seat; the link does", async () => {
  const email = address("invitee");
  await invite(email, "ADMIN");
  const squatter = ok(await app.gql(SignUpThrough, { email, token: null })).signUp;
  expect(ok(await app.gql(Organizations, {}, { token: squatter.token })).organizations).toEqual([]);
  expect(ok(await app.gql(Pending, { org: owner.organizationId }, { token: owner.token })).organization!.invitations).toContainEqual({ email, role: "ADMIN" });

  const other = address("invitee");
  const link = await invite(other, "MEMBER");
  const joined = ok(await app.gql(SignUpThrough, { email: other, token: link.token })).signUp;
  expect(ok(await app.gql(Organizations, {}, { token: joined.token })).organizations).toEqual([{ id: owner.organizationId, viewerRole: "MEMBER" }]);
});

test("the invited person can decline; nobody else can, and declined links stop working", async () => {
  const invitee = await newUser();
  const { id, token } = await invite(invitee.email);
  const bystander = await newUser();
  expect(errorCode(await app.gql(Decline, { id }, { token: bystander.token }))).toBe("NOT_FOUND");
  expect(errorCode(await app.gql(Decline, { id }, { token: owner.token }))).toBe("NOT_FOUND");
  expect(ok(await app.gql(Decline, { id }, { token: invitee.token })).declineInvitation).toBe(true);
  expect(errorCode(await app.gql(AcceptInvitation, { token }, { token: invitee.token }))).toBe("NOT_FOUND");
  expect(ok(await app.gql(Pending, { org: owner.organizationId }, { token: owner.token })).organization!.invitations.map((i) => i.email)).not.toContain(invitee.email);
});

test("whoever holds the link sees what it invites to (public); a bad link shows nothing", async () => {
  const email = address("preview");
  const { token } = await invite(email, "ADMIN");
  expect(ok(await app.gql(Preview, { token })).invitation).toEqual({ email, role: "ADMIN", organizationName: "Owner's org", acceptUrl: null, invitedBy: { name: "Owner" } });
  expect(ok(await app.gql(Preview, { token: `${token}x` })).invitation).toBeNull();
  expect(ok(await app.gql(Preview, { token: "x".repeat(5000) })).invitation).toBeNull();
});

test("an admin can neither downgrade nor revoke an owner's pending invitation; an owner can", async () => {
  const team = await createOperator(app, "Team");
  const admin = await newUser();
  await joinByInvitation(app.gql, team.token, team.organizationId, admin, "ADMIN");
  const email = address("future-owner");
  const invited = ok(await app.gql(InviteMember, { organizationId: team.organizationId, email, role: "OWNER" }, { token: team.token })).inviteMember as { id: string };

  const downgrade = await app.gql(InviteMember, { organizationId: team.organizationId, email, role: "MEMBER" }, { token: admin.token });
  expect(errorCode(downgrade)).toBe("FORBIDDEN");
  expect(downgrade.errors?.[0].message).toMatch(/Only owners can change an owner's invitation/);
  const revoke = await app.gql(Revoke, { id: invited.id }, { token: admin.token });
  expect(errorCode(revoke)).toBe("FORBIDDEN");
  expect(revoke.errors?.[0].message).toMatch(/Only owners can revoke an owner's invitation/);
  expect(ok(await app.gql(Pending, { org: team.organizationId }, { token: team.token })).organization!.invitations).toEqual([{ email, role: "OWNER" }]);

  // Admins still manage the invitations they may make.
  const plain = ok(await app.gql(InviteMember, { organizationId: team.organizationId, email: address("plain"), role: "MEMBER" }, { token: admin.token })).inviteMember as { id: string };
  expect(ok(await app.gql(Revoke, { id: plain.id }, { token: admin.token })).revokeInvitation).toBe(true);
  // The owner changes and revokes it.
  ok(await app.gql(InviteMember, { organizationId: team.organizationId, email, role: "ADMIN" }, { token: team.token }));
  expect(ok(await app.gql(Revoke, { id: invited.id }, { token: team.token })).revokeInvitation).toBe(true);
});

test("an invitation link works for 14 days: past that it is not shown, accepted or signed up through, and inviting again renews it", async () => {
  const clock = fakeClock();
  // Sessions outlive the invitation here, so the same people act before and after it expires.
  const timed = await startTestApp({ SESSION_TTL_HOURS: String(24 * 30) }, { clock });
  try {
    const team = await createOperator(timed, "Team");
    const email = address("late");
    const sent = ok(await timed.gql(InviteShape, { org: team.organizationId, email }, { token: team.token })).inviteMember;
    if (sent.__typename !== "Invitation") throw new Error("not an invitation");
    expect(sent.expiresAt).toBe("2026-01-15T00:00:00.000Z");
    const token = invitationToken(sent.acceptUrl);
    const person = ok(await timed.gql(SignUp, { email, password: "a fine password", name: "Late" })).signUp.token;

    clock.set(new Date("2026-01-14T23:59:00.000Z"));
    expect(ok(await timed.gql(Preview, { token })).invitation?.email).toBe(email);
    expect(ok(await timed.gql(MyInvitations, {}, { token: person })).viewer!.invitations).toHaveLength(1);
    expect(ok(await timed.gql(Pending, { org: team.organizationId }, { token: team.token })).organization!.invitations).toHaveLength(1);

    clock.set(new Date("2026-01-15T00:00:01.000Z"));
    expect(ok(await timed.gql(Preview, { token })).invitation).toBeNull();
    expect(ok(await timed.gql(MyInvitations, {}, { token: person })).viewer!.invitations).toEqual([]);
    expect(ok(await timed.gql(Pending, { org: team.organizationId }, { token: team.token })).organization!.invitations).toEqual([]);
    expect(errorCode(await timed.gql(AcceptInvitation, { token }, { token: person }))).toBe("NOT_FOUND");
    expect(errorCode(await timed.gql(SignUpThrough, { email: address("someone-else"), token }))).toBe("NOT_FOUND");
    expect(ok(await timed.gql(Organizations, {}, { token: person })).organizations).toEqual([]);

    // Inviting again issues a new link for another 14 days from now; the expired one stays dead.
    const again = ok(await timed.gql(InviteShape, { org: team.organizationId, email }, { token: team.token })).inviteMember;
    if (again.__typename !== "Invitation") throw new Error("not an invitation");
    expect(again.expiresAt).toBe("2026-01-29T00:00:01.000Z");
    expect(errorCode(await timed.gql(AcceptInvitation, { token }, { token: person }))).toBe("NOT_FOUND");
    ok(await timed.gql(AcceptInvitation, { token: invitationToken(again.acceptUrl) }, { token: person }));
    expect(ok(await timed.gql(Organizations, {}, { token: person })).organizations).toEqual([{ id: team.organizationId, viewerRole: "MEMBER" }]);
  } finally {
    await timed.close();
  }
});
