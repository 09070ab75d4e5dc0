import { randomBytes } from "node:crypto";
import { graphql } from "../generated/gql.ts";
import { ok, type TestApp } from "./testApp.ts";

const SignUp = graphql(`
  mutation SignUp($email: String!, $password: String!, $name: String!, $invitationToken: String) {
    signUp(email: $email, password: $password, name: $name, invitationToken: $invitationToken) { token user { id email name } }
  }
`);

const CreateOrganization = graphql(`
  mutation CreateOrganization($name: String!) {
    createOrganization(name: $name) { id name deployments { id name } }
  }
`);

const GenerateApiKey = graphql(`
  mutation GenerateApiKey($deploymentId: ID!, $gracePeriodSeconds: Int) {
    generateApiKey(deploymentId: $deploymentId, gracePeriodSeconds: $gracePeriodSeconds) { apiKey key { prefix createdAt } }
  }
`);

export interface Operator {
  token: string;
  userId: string;
  email: string;
  organizationId: string;
  deploymentId: string; // the `development` deployment
  productionDeploymentId: string;
  apiKey: string; // a key of the development deployment
}

/** A signed-up user with an organization and a key for its development deployment: the usual start of a story. */
export async function createOperator(app: TestApp, name = "Ada"): Promise<Operator> {
  const email = `${name.toLowerCase()}-${randomBytes(4).toString("hex")}@example.com`;
  const { signUp } = ok(await app.gql(SignUp, { email, password: "correct horse battery", name }));
  const { createOrganization } = ok(await app.gql(CreateOrganization, { name: `${name}'s org` }, { token: signUp.token }));
  const development = createOrganization.deployments.find((d) => d.name === "development")!;
  const production = createOrganization.deployments.find((d) => d.name === "production")!;
  const { generateApiKey } = ok(await app.gql(GenerateApiKey, { deploymentId: development.id }, { token: signUp.token }));
  return {
    token: signUp.token,
    userId: signUp.user.id,
    email,
    organizationId: createOrganization.id,
    deploymentId: development.id,
    productionDeploymentId: production.id,
    apiKey: generateApiKey.apiKey,
  };
}

export { GenerateApiKey, SignUp, CreateOrganization };

const InviteMember = graphql(`
  mutation InviteMember($organizationId: ID!, $email: String!, $role: Role!) {
    inviteMember(organizationId: $organizationId, email: $email, role: $role) { __typename ... on Invitation { id email role acceptUrl } }
  }
`);

const AcceptInvitation = graphql(`
  mutation AcceptInvitation($token: String!) { acceptInvitation(token: $token) { id viewerRole } }
`);

/** The secret token at the end of an invitation's acceptUrl. */
export const invitationToken = (acceptUrl: string | null | undefined): string => {
  if (!acceptUrl) throw new Error("the invitation came without its acceptUrl");
  return acceptUrl.slice(acceptUrl.lastIndexOf("/") + 1);
};

/**
 * Someone who has an account joins an organization the way people do: an owner or admin
 * (`inviterToken`) invites their address, and they accept the link while logged in.
 */
export async function joinByInvitation(
  gql: TestApp["gql"],
  inviterToken: string,
  organizationId: string,
  member: { email: string; token: string },
  role: "OWNER" | "ADMIN" | "MEMBER" = "MEMBER",
): Promise<void> {
  const invited = ok(await gql(InviteMember, { organizationId, email: member.email, role }, { token: inviterToken })).inviteMember;
  if (invited.__typename !== "Invitation") throw new Error("inviteMember answered a Membership");
  ok(await gql(AcceptInvitation, { token: invitationToken(invited.acceptUrl) }, { token: member.token }));
}

export { InviteMember, AcceptInvitation };
