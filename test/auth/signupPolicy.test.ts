import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { CreateOrganization, GenerateApiKey, SignUp } from "../helpers/operators.ts";
import { type Caller, errorCode, type GraphQLResult, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * SIGNUP=closed (the production default once the first account exists): strangers are turned
 * away with how to get in; an address an owner or admin invited signs up and lands in the
 * organization with the invited role.
 */

const Invite = graphql(`
  mutation SpInvite($org: ID!, $email: String!, $role: Role!) {
    inviteMember(organizationId: $org, email: $email, role: $role) {
      __typename
      ... on Invitation { id email role expiresAt invitedBy { email } }
      ... on Membership { role user { email } }
    }
  }
`);
const Invitations = graphql(`query SpInvitations($org: ID!) { organization(id: $org) { invitations { id email role } } }`);
const Revoke = graphql(`mutation SpRevoke($id: ID!) { revokeInvitation(id: $id) }`);
const Mine = graphql(`query SpMine { organizations { id name viewerRole } }`);

let app: TestApp;
const password = "a good long password";
let owner: { token: string; email: string; organizationId: string; deploymentId: string; apiKey: string };

const signUp = (email: string) => app.gql(SignUp, { email, password, name: email.split("@")[0] });
const invite = (caller: Caller, email: string, role: "OWNER" | "ADMIN" | "MEMBER" = "MEMBER", org = owner.organizationId) =>
  app.gql(Invite, { org, email, role }, caller);

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

  test("an invited address signs up (any letter case) and lands in the organization with the invited role", async () => {
    const { inviteMember } = ok(await invite({ token: owner.token }, "  New.Admin@Example.com ", "ADMIN"));
    expect(inviteMember).toMatchObject({ __typename: "Invitation", email: "new.admin@example.com", role: "ADMIN", invitedBy: { email: owner.email } });
    const listed = ok(await app.gql(Invitations, { org: owner.organizationId }, { token: owner.token })).organization!.invitations;
    expect(listed).toContainEqual({ id: (inviteMember as { id: string }).id, email: "new.admin@example.com", role: "ADMIN" });

    const { signUp: joined } = ok(await signUp("NEW.ADMIN@example.com"));
    expect(ok(await app.gql(Mine, {}, { token: joined.token })).organizations).toEqual([{ id: owner.organizationId, name: "Acme", viewerRole: "ADMIN" }]);
    // Accepted: no longer pending, and the address cannot sign up twice.
    expect(ok(await app.gql(Invitations, { org: owner.organizationId }, { token: owner.token })).organization!.invitations.map((i) => i.email)).not.toContain(
      "new.admin@example.com",
    );
    expect(errorCode(await signUp("new.admin@example.com"))).toBe("FORBIDDEN");
  });

  test("inviting an address that has an account adds the user at once", async () => {
    ok(await invite({ token: owner.token }, "twice@example.com"));
    ok(await signUp("twice@example.com"));
    const { createOrganization } = ok(await app.gql(CreateOrganization, { name: "Second" }, { token: owner.token }));
    const { inviteMember } = ok(await invite({ token: owner.token }, "twice@example.com", "ADMIN", createOrganization.id));
    expect(inviteMember).toEqual({ __typename: "Membership", role: "ADMIN", user: { email: "twice@example.com" } });
    expect(errorCode(await invite({ token: owner.token }, "twice@example.com", "ADMIN", createOrganization.id))).toBe("BAD_USER_INPUT");
  });

  test("a revoked or expired invitation lets nobody in, and is not listed", async () => {
    const revoked = ok(await invite({ token: owner.token }, "revoked@example.com")).inviteMember as { id: string };
    expect(ok(await app.gql(Revoke, { id: revoked.id }, { token: owner.token })).revokeInvitation).toBe(true);
    expect(errorCode(await signUp("revoked@example.com"))).toBe("FORBIDDEN");

    ok(await invite({ token: owner.token }, "late@example.com"));
    await app.database.prisma.invitation.updateMany({ where: { email: "late@example.com" }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const listed = ok(await app.gql(Invitations, { org: owner.organizationId }, { token: owner.token })).organization!.invitations;
    expect(listed.map((i) => i.email)).not.toContain("late@example.com");
    expect(errorCode(await signUp("late@example.com"))).toBe("FORBIDDEN");
    // Inviting again renews it.
    ok(await invite({ token: owner.token }, "late@example.com"));
    ok(await signUp("late@example.com"));
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
  ok(await invite({ token: inviter }, email, role, org));
  return ok(await signUp(email)).signUp.token;
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
