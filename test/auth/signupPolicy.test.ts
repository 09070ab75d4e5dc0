import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { AcceptInvitation, CreateOrganization, GenerateApiKey, invitationToken } from "../helpers/operators.ts";
import { type Caller, errorCode, type GraphQLResult, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * SIGNUP=closed (the production default once the first account exists): strangers are turned
 * away with how to get in; a person an owner invited signs up through the invitation's link and
 * lands in the organization with the invited role. Typing an invited address is not enough: the
 * link's secret is what shows the inviter meant this person.
 */

const Invite = graphql(`
  mutation SpInvite($org: ID!, $email: String!, $role: Role!) {
    inviteMember(organizationId: $org, email: $email, role: $role) {
      __typename
      ... on Invitation { id email role expiresAt acceptUrl invitedBy { email } }
      ... on Membership { role user { email } }
    }
  }
`);
const SignUpThrough = graphql(`
  mutation SpSignUpThrough($email: String!, $password: String!, $name: String!, $invitationToken: String) {
    signUp(email: $email, password: $password, name: $name, invitationToken: $invitationToken) { token user { id email } }
  }
`);
const Invitations = graphql(`query SpInvitations($org: ID!) { organization(id: $org) { invitations { id email role acceptUrl } } }`);
const Revoke = graphql(`mutation SpRevoke($id: ID!) { revokeInvitation(id: $id) }`);
const Mine = graphql(`query SpMine { organizations { id name viewerRole } }`);
const NewOrganization = graphql(`mutation SpNewOrganization($name: String!) { createOrganization(name: $name) { id } }`);

let app: TestApp;
const password = "a good long password";
let owner: { token: string; email: string; organizationId: string; deploymentId: string; apiKey: string };

const signUp = (email: string, invitationToken?: string) => app.gql(SignUpThrough, { email, password, name: email.split("@")[0], invitationToken });
const invite = (caller: Caller, email: string, role: "OWNER" | "ADMIN" | "MEMBER" = "MEMBER", org = owner.organizationId) =>
  app.gql(Invite, { org, email, role }, caller);
/** The invitation's link token, from an inviteMember answer. */
async function linkOf(result: Promise<GraphQLResult<{ inviteMember: { __typename: string; acceptUrl?: string | null } }>>): Promise<string> {
  return invitationToken(ok(await result).inviteMember.acceptUrl);
}

beforeAll(async () => {
  app = await startTestApp({ SIGNUP: "closed" });
});
afterAll(() => app.close());

describe("with SIGNUP=closed", () => {
  test("the install's first account can always be created (else nobody could get in)", async () => {
    expect(await (await fetch(`${app.url}/console/api/status`)).json()).toEqual({ firstRun: true });
    const { signUp: first } = ok(await signUp("first@example.com"));
    const { createOrganization } = ok(await app.gql(CreateOrganization, { name: "Acme" }, { token: first.token }));
    const development = createOrganization.deployments.find((d) => d.name === "development")!;
    const { generateApiKey } = ok(await app.gql(GenerateApiKey, { deploymentId: development.id }, { token: first.token }));
    owner = { token: first.token, email: "first@example.com", organizationId: createOrganization.id, deploymentId: development.id, apiKey: generateApiKey.apiKey };
  });

  test("a stranger is FORBIDDEN, told how to get in, and no account is made", async () => {
    const result = await signUp("stranger@example.com");
    expect(errorCode(result)).toBe("FORBIDDEN");
    expect(result.errors?.[0].message).toMatch(/Sign-up is closed.*invite your email address/);
    // Not even whether the address is registered is revealed.
    expect(errorCode(await signUp(owner.email))).toBe("FORBIDDEN");
    expect(errorCode(await app.gql(graphql(`mutation SpLogIn($e: String!, $p: String!) { logIn(email: $e, password: $p) { token } }`), { e: "stranger@example.com", p: password }))).toBe(
      "UNAUTHENTICATED",
    );
  });

  test("an invited person signs up through the link (any letter case) and lands in the organization with the invited role", async () => {
    const { inviteMember } = ok(await invite({ token: owner.token }, "  New.Admin@Example.com ", "ADMIN"));
    expect(inviteMember).toMatchObject({ __typename: "Invitation", email: "new.admin@example.com", role: "ADMIN", invitedBy: { email: owner.email } });
    const link = (inviteMember as { acceptUrl: string }).acceptUrl;
    expect(link).toMatch(new RegExp(`^${app.url}/console/invitations/sy_inv_[A-Za-z0-9_-]{43}$`));
    // Shown once: the list has the invitation, never its link.
    const listed = ok(await app.gql(Invitations, { org: owner.organizationId }, { token: owner.token })).organization!.invitations;
    expect(listed).toContainEqual({ id: (inviteMember as { id: string }).id, email: "new.admin@example.com", role: "ADMIN", acceptUrl: null });

    const { signUp: joined } = ok(await signUp("NEW.ADMIN@example.com", invitationToken(link)));
    expect(ok(await app.gql(Mine, {}, { token: joined.token })).organizations).toEqual([{ id: owner.organizationId, name: "Acme", viewerRole: "ADMIN" }]);
    // Accepted: no longer pending, and neither the link nor the address works twice.
    expect(ok(await app.gql(Invitations, { org: owner.organizationId }, { token: owner.token })).organization!.invitations.map((i) => i.email)).not.toContain(
      "new.admin@example.com",
    );
    expect(errorCode(await signUp("other@example.com", invitationToken(link)))).toBe("NOT_FOUND");
    expect(errorCode(await signUp("new.admin@example.com"))).toBe("FORBIDDEN");
  });

  test("whoever types a pending invitee's address first does not take the seat: without the link they are turned away", async () => {
    const link = await linkOf(invite({ token: owner.token }, "ceo@example.com", "OWNER"));
    const squatter = await signUp("ceo@example.com");
    expect(errorCode(squatter)).toBe("FORBIDDEN");
    expect(squatter.errors?.[0].message).toMatch(/Sign-up is closed/);
    // A link sent to another address does not open the door for this one either.
    const elsewhere = await signUp("intruder@example.com", link);
    expect(errorCode(elsewhere)).toBe("BAD_USER_INPUT");
    expect(elsewhere.errors?.[0].extensions?.fields).toEqual([{ field: "email", message: "is not the address this invitation was sent to" }]);
    // The invitee still can.
    const { signUp: ceo } = ok(await signUp("ceo@example.com", link));
    expect(ok(await app.gql(Mine, {}, { token: ceo.token })).organizations.map((o) => o.viewerRole)).toEqual(["OWNER"]);
  });

  test("only an owner's invitation lets someone without an account sign up; an admin's still works for people who have one", async () => {
    const admin = await joinAs("ADMIN");
    const fromAdmin = ok(await invite({ token: admin }, "outsider@example.com"));
    // The admin gets the same answer as for anyone: nothing says whether the address has an account.
    expect(fromAdmin.inviteMember.__typename).toBe("Invitation");
    const refused = await signUp("outsider@example.com", invitationToken((fromAdmin.inviteMember as { acceptUrl: string }).acceptUrl));
    expect(errorCode(refused)).toBe("FORBIDDEN");
    expect(refused.errors?.[0].message).toMatch(/only an invitation from an owner/);

    // The same admin invites someone who already has an account (from another organization): they accept.
    const { createOrganization: second } = ok(await app.gql(CreateOrganization, { name: "Second" }, { token: owner.token }));
    const colleague = await joinAs("MEMBER", second.id);
    const colleagueEmail = `member-${joined}@example.com`;
    const link = await linkOf(invite({ token: admin }, colleagueEmail));
    ok(await app.gql(AcceptInvitation, { token: link }, { token: colleague }));
    expect(ok(await app.gql(Mine, {}, { token: colleague })).organizations.map((o) => o.id)).toContain(owner.organizationId);
  });

  test("creating organizations is for owners (ORGANIZATION_CREATION defaults to owners with sign-up closed)", async () => {
    const member = await joinAs("MEMBER");
    const refused = await app.gql(NewOrganization, { name: "Mine now" }, { token: member });
    expect(errorCode(refused)).toBe("FORBIDDEN");
    expect(refused.errors?.[0].message).toMatch(/ORGANIZATION_CREATION=owners/);
    const admin = await joinAs("ADMIN");
    expect(errorCode(await app.gql(NewOrganization, { name: "Mine now" }, { token: admin }))).toBe("FORBIDDEN");
    ok(await app.gql(NewOrganization, { name: "Third" }, { token: owner.token }));
  });

  test("a revoked, replaced or expired invitation lets nobody in, and is not listed", async () => {
    const revoked = ok(await invite({ token: owner.token }, "revoked@example.com")).inviteMember as { id: string; acceptUrl: string };
    expect(ok(await app.gql(Revoke, { id: revoked.id }, { token: owner.token })).revokeInvitation).toBe(true);
    expect(errorCode(await signUp("revoked@example.com", invitationToken(revoked.acceptUrl)))).toBe("NOT_FOUND");

    const first = await linkOf(invite({ token: owner.token }, "twice-invited@example.com"));
    const second = await linkOf(invite({ token: owner.token }, "twice-invited@example.com"));
    expect(errorCode(await signUp("twice-invited@example.com", first))).toBe("NOT_FOUND");
    ok(await signUp("twice-invited@example.com", second));

    const late = await linkOf(invite({ token: owner.token }, "late@example.com"));
    await app.database.prisma.invitation.updateMany({ where: { email: "late@example.com" }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const listed = ok(await app.gql(Invitations, { org: owner.organizationId }, { token: owner.token })).organization!.invitations;
    expect(listed.map((i) => i.email)).not.toContain("late@example.com");
    expect(errorCode(await signUp("late@example.com", late))).toBe("NOT_FOUND");
    // Inviting again renews it, with a new link.
    ok(await signUp("late@example.com", await linkOf(invite({ token: owner.token }, "late@example.com"))));
  });

  test("bad input is BAD_USER_INPUT on the field; only owners invite owners", async () => {
    const bad = await invite({ token: owner.token }, "not an email");
    expect(errorCode(bad)).toBe("BAD_USER_INPUT");
    expect(bad.errors?.[0].extensions?.fields).toEqual([{ field: "email", message: "is not an email address" }]);
    const admin = await joinAs("ADMIN");
    expect(errorCode(await invite({ token: admin }, "would-be-owner@example.com", "OWNER"))).toBe("FORBIDDEN");
    expect(ok(await invite({ token: admin }, "plain-member@example.com", "MEMBER")).inviteMember.__typename).toBe("Invitation");
  });
});

let joined = 0;
/** A user invited into the owner's organization with `role`; their session token. */
async function joinAs(role: "ADMIN" | "MEMBER", org = owner.organizationId, inviter = owner.token): Promise<string> {
  const email = `${role.toLowerCase()}-${++joined}@example.com`;
  return ok(await signUp(email, await linkOf(invite({ token: inviter }, email, role, org)))).signUp.token;
}

describe("tenancy: who may see and change invitations", () => {
  type Who = "owner" | "admin" | "member" | "otherUser" | "ownKey" | "nobody";
  const everyone: Who[] = ["owner", "admin", "member", "otherUser", "ownKey", "nobody"];
  let callers: Record<Who, Caller>;
  beforeAll(async () => {
    // Someone who manages an organization of their own and has no part in the owner's.
    const { createOrganization: elsewhere } = ok(await app.gql(CreateOrganization, { name: "Elsewhere" }, { token: owner.token }));
    callers = {
      owner: { token: owner.token },
      admin: { token: await joinAs("ADMIN") },
      member: { token: await joinAs("MEMBER") },
      otherUser: { token: await joinAs("ADMIN", elsewhere.id) },
      ownKey: { apiKey: owner.apiKey },
      nobody: {},
    };
  });

  let n = 0;
  const pendingId = async () => (ok(await invite({ token: owner.token }, `pending-${++n}@example.com`)).inviteMember as { id: string }).id;
  type Row = [string, (caller: Caller) => Promise<GraphQLResult<unknown>>, Who[], "FORBIDDEN" | "NOT_FOUND"];
  const rows: Row[] = [
    ["inviteMember", (c) => invite(c, `tenant-${++n}@example.com`), ["owner", "admin"], "FORBIDDEN"],
    ["organization.invitations", (c) => app.gql(Invitations, { org: owner.organizationId }, c), ["owner", "admin"], "FORBIDDEN"],
    ["revokeInvitation", async (c) => app.gql(Revoke, { id: await pendingId() }, c), ["owner", "admin"], "NOT_FOUND"],
  ];
  describe.each(rows)("%s", (_name, run, allowed, denied) => {
    test.each(everyone)("as %s", async (who) => {
      const result = await run(callers[who]);
      if (allowed.includes(who)) expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
      else if (who === "nobody") expect(errorCode(result)).toBe("UNAUTHENTICATED");
      else if (who === "member") expect(errorCode(result)).toBe("FORBIDDEN");
      else expect(errorCode(result)).toBe(denied);
    });
  });
});
