import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { createOperator, InviteMember, joinByInvitation, type Operator, SignUp } from "../helpers/operators.ts";
import { errorCode, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

const RemoveMember = graphql(`mutation MRemoveMember($org: ID!, $user: ID!) { removeMember(organizationId: $org, userId: $user) }`);
const Members = graphql(`query MMembers($org: ID!) { organization(id: $org) { members { role user { email } } } }`);
const DeploymentOf = graphql(`query MDeployment($id: ID!) { deployment(id: $id) { id } }`);

let app: TestApp;
let owner: Operator;
beforeAll(async () => {
  app = await startTestApp();
  owner = await createOperator(app, "Owner");
});
afterAll(() => app.close());

async function newUser() {
  const email = `m-${randomBytes(4).toString("hex")}@example.com`;
  const { signUp } = ok(await app.gql(SignUp, { email, password: "member password", name: "M" }));
  return { email, id: signUp.user.id, token: signUp.token };
}

test("an owner invites people who signed up; they accept, are listed, and can be removed", async () => {
  const person = await newUser();
  await joinByInvitation(app.gql, owner.token, owner.organizationId, { email: person.email.toUpperCase(), token: person.token }, "ADMIN");
  const listed = ok(await app.gql(Members, { org: owner.organizationId }, { token: person.token })).organization!.members;
  expect(listed).toContainEqual({ role: "ADMIN", user: { email: person.email } });

  expect(ok(await app.gql(DeploymentOf, { id: owner.deploymentId }, { token: person.token })).deployment?.id).toBe(owner.deploymentId);

  expect(ok(await app.gql(RemoveMember, { org: owner.organizationId, user: person.id }, { token: owner.token })).removeMember).toBe(true);
  // At once, though both answers above were remembered (the role cache of src/auth/access.ts).
  expect(errorCode(await app.gql(Members, { org: owner.organizationId }, { token: person.token }))).toBe("FORBIDDEN");
  expect(errorCode(await app.gql(DeploymentOf, { id: owner.deploymentId }, { token: person.token }))).toBe("FORBIDDEN");
});

test("inviting someone already in the organization is BAD_USER_INPUT on the email field", async () => {
  const again = await app.gql(InviteMember, { organizationId: owner.organizationId, email: owner.email, role: "MEMBER" }, { token: owner.token });
  expect(errorCode(again)).toBe("BAD_USER_INPUT");
  expect(again.errors?.[0].extensions?.fields).toEqual([{ field: "email", message: "is already a member" }]);
});

test("only owners add owners, and the last owner cannot be removed", async () => {
  const admin = await newUser();
  await joinByInvitation(app.gql, owner.token, owner.organizationId, admin, "ADMIN");
  const someone = await newUser();
  expect(errorCode(await app.gql(InviteMember, { organizationId: owner.organizationId, email: someone.email, role: "OWNER" }, { token: admin.token }))).toBe("FORBIDDEN");

  const lastOwner = await app.gql(RemoveMember, { org: owner.organizationId, user: owner.userId }, { token: owner.token });
  expect(errorCode(lastOwner)).toBe("BAD_USER_INPUT");
  expect(lastOwner.errors?.[0].message).toMatch(/last owner/);
});

test("removeMember: members, other organizations' users, keys and nobody are refused", async () => {
  const member = await newUser();
  await joinByInvitation(app.gql, owner.token, owner.organizationId, member);
  const other = await createOperator(app, "Other");
  const remove = (caller: { token?: string; apiKey?: string }) => app.gql(RemoveMember, { org: owner.organizationId, user: member.id }, caller);
  expect(errorCode(await remove({ token: member.token }))).toBe("FORBIDDEN");
  expect(errorCode(await remove({ token: other.token }))).toBe("FORBIDDEN");
  expect(errorCode(await remove({ apiKey: owner.apiKey }))).toBe("FORBIDDEN");
  expect(errorCode(await remove({}))).toBe("UNAUTHENTICATED");
  expect(errorCode(await app.gql(RemoveMember, { org: owner.organizationId, user: other.userId }, { token: owner.token }))).toBe("NOT_FOUND");
});

test("an admin cannot remove an owner; an owner can, while another owner remains", async () => {
  const team = await createOperator(app, "Team");
  const admin = await newUser();
  const secondOwner = await newUser();
  await joinByInvitation(app.gql, team.token, team.organizationId, admin, "ADMIN");
  await joinByInvitation(app.gql, team.token, team.organizationId, secondOwner, "OWNER");

  const byAdmin = await app.gql(RemoveMember, { org: team.organizationId, user: team.userId }, { token: admin.token });
  expect(errorCode(byAdmin)).toBe("FORBIDDEN");
  expect(byAdmin.errors?.[0].message).toMatch(/Only owners can remove owners/);
  const members = ok(await app.gql(Members, { org: team.organizationId }, { token: team.token })).organization!.members;
  expect(members.filter((m) => m.role === "OWNER")).toHaveLength(2);

  expect(ok(await app.gql(RemoveMember, { org: team.organizationId, user: secondOwner.id }, { token: team.token })).removeMember).toBe(true);
  // Admins still remove admins and members (themselves included).
  expect(ok(await app.gql(RemoveMember, { org: team.organizationId, user: admin.id }, { token: admin.token })).removeMember).toBe(true);
});

test("two owners removing each other at once: one succeeds, the organization keeps an owner", async () => {
  for (let round = 0; round < 3; round++) {
    const team = await createOperator(app, "Pair");
    const other = await newUser();
    await joinByInvitation(app.gql, team.token, team.organizationId, other, "OWNER");
    const results = await Promise.all([
      app.gql(RemoveMember, { org: team.organizationId, user: other.id }, { token: team.token }),
      app.gql(RemoveMember, { org: team.organizationId, user: team.userId }, { token: other.token }),
    ]);
    const codes = results.map((result) => errorCode(result) ?? "OK").sort();
    // The loser is either "last owner" (it ran second) or "no longer a member" (it lost its own membership first).
    expect(codes.filter((code) => code === "OK")).toHaveLength(1);
    const survivor = results[0].data?.removeMember ? team.token : other.token;
    const owners = ok(await app.gql(Members, { org: team.organizationId }, { token: survivor })).organization!.members.filter((m) => m.role === "OWNER");
    expect(owners).toHaveLength(1);
  }
});
