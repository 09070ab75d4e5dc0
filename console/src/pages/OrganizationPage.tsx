import type { ResultOf } from "@graphql-typed-document-node/core";
import { type FormEvent, useId, useState } from "react";
import { useMutation, useQuery } from "urql";
import { useAuth } from "../auth.tsx";
import { ConfirmDialog } from "../components/ConfirmDialog.tsx";
import { CopyButton } from "../components/CopyButton.tsx";
import { Field } from "../components/Field.tsx";
import { Shell } from "../components/Shell.tsx";
import { Empty, LoadError, Loading } from "../components/States.tsx";
import { useToast } from "../components/Toasts.tsx";
import { useConfirmedMutation } from "../components/useConfirmedMutation.ts";
import { describeError, fieldErrors } from "../errors.ts";
import { graphql } from "../generated/gql.ts";
import { formatDate } from "../format.ts";
import { Link } from "../router.tsx";
import { roleLabel } from "./Organizations.tsx";

const OrganizationQuery = graphql(`
  query ConsoleOrganization($id: ID!) {
    organization(id: $id) {
      id
      name
      viewerRole
      deployments { id name createdAt apiKey { id prefix lastUsedAt } }
      members { id role createdAt user { id name email } }
    }
  }
`);

const CreateDeploymentMutation = graphql(`
  mutation ConsoleCreateDeployment($organizationId: ID!, $name: String!) {
    createDeployment(organizationId: $organizationId, name: $name) { id name }
  }
`);

/** An organization: App Integration (its deployments) and Members. */
export function OrganizationPage({ organizationId, tab }: { organizationId: string; tab: "integration" | "members" }) {
  const [{ data, fetching, error }, refetch] = useQuery({ query: OrganizationQuery, variables: { id: organizationId } });
  const organization = data?.organization;
  return (
    <Shell crumbs={[{ label: "Organizations", to: "/organizations" }, { label: organization?.name ?? "…" }]}>
      {error && !organization && <LoadError error={error} retry={() => refetch({ requestPolicy: "network-only" })} />}
      {fetching && !data && <Loading what="Loading the organization" />}
      {data && !organization && !error && <Empty title="This organization was not found">It may have been deleted, or you are not a member.</Empty>}
      {organization && (
        <>
          <div className="page-head">
            <h1>{organization.name}</h1>
            <span className="badge">{roleLabel(organization.viewerRole)}</span>
          </div>
          <nav className="tabs" aria-label="Organization">
            <Link to={`/organizations/${organization.id}/integration`} aria-current={tab === "integration" ? "page" : undefined}>
              App Integration
            </Link>
            <Link to={`/organizations/${organization.id}/members`} aria-current={tab === "members" ? "page" : undefined}>
              Members
            </Link>
          </nav>
          {tab === "integration" ? (
            <AppIntegration
              organizationId={organization.id}
              canManage={organization.viewerRole === "OWNER" || organization.viewerRole === "ADMIN"}
              deployments={organization.deployments}
              refetch={() => refetch({ requestPolicy: "network-only" })}
            />
          ) : (
            <Members
              organizationId={organization.id}
              members={organization.members}
              viewerRole={organization.viewerRole ?? "MEMBER"}
              refetch={() => refetch({ requestPolicy: "network-only" })}
            />
          )}
        </>
      )}
    </Shell>
  );
}

type Organization = NonNullable<ResultOf<typeof OrganizationQuery>["organization"]>;
type DeploymentRow = Organization["deployments"][number];

function AppIntegration(props: { organizationId: string; canManage: boolean; deployments: DeploymentRow[]; refetch(): void }) {
  return (
    <>
      <section className="panel">
        <h2>Deployments</h2>
        <p className="muted">Each deployment (environment) has its own API key, forwarding settings, connected accounts and data. Choose one to configure it.</p>
        {props.deployments.length === 0 ? (
          <Empty title="No deployments yet">Create one below.</Empty>
        ) : (
          <ul className="rows" aria-label="Deployments">
            {props.deployments.map((deployment) => (
              <li key={deployment.id}>
                <Link to={`/deployments/${deployment.id}/overview`} className="row-link">
                  <span className="row-main">
                    <strong>{deployment.name}</strong>
                    <span className="muted">created {formatDate(deployment.createdAt)}</span>
                  </span>
                  <span className="row-side">
                    {deployment.apiKey ? <code>{deployment.apiKey.prefix}…</code> : <span className="muted">no API key yet</span>}
                    <span className="chevron" aria-hidden="true">
                      ›
                    </span>
                  </span>
                </Link>
              </li>
            ))}
          </ul>
        )}
      </section>
      {props.canManage ? (
        <CreateDeployment organizationId={props.organizationId} onCreated={props.refetch} />
      ) : (
        <p className="muted">Only owners and admins can create deployments.</p>
      )}
    </>
  );
}

function CreateDeployment({ organizationId, onCreated }: { organizationId: string; onCreated(): void }) {
  const [name, setName] = useState("");
  const [{ fetching, error }, create] = useMutation(CreateDeploymentMutation);
  const toast = useToast();
  const fields = fieldErrors(error);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await create({ organizationId, name });
    if (result.data) {
      toast.success(`Deployment "${result.data.createDeployment.name}" created.`);
      setName("");
      onCreated();
    }
  };
  return (
    <form className="panel" onSubmit={submit}>
      <h2>Create a deployment</h2>
      {error && !fields.name && (
        <div className="form-error" role="alert">
          {describeError(error)}
        </div>
      )}
      <div className="inline-form">
        <Field label="Deployment name" name="deploymentName" required value={name} onChange={(e) => setName(e.target.value)} error={fields.name} placeholder="staging" />
        <button type="submit" className="button primary" disabled={fetching || !name.trim()}>
          {fetching ? "Creating…" : "Create deployment"}
        </button>
      </div>
    </form>
  );
}

const InviteMemberMutation = graphql(`
  mutation ConsoleInviteMember($organizationId: ID!, $email: String!, $role: Role!) {
    inviteMember(organizationId: $organizationId, email: $email, role: $role) {
      __typename
      ... on Invitation { id email role acceptUrl }
    }
  }
`);

// Separate from the page's query: only owners and admins may read invitations.
const InvitationsQuery = graphql(`
  query ConsoleInvitations($id: ID!) {
    organization(id: $id) {
      id
      invitations { id email role createdAt expiresAt invitedBy { name } }
    }
  }
`);

const RevokeInvitationMutation = graphql(`
  mutation ConsoleRevokeInvitation($id: ID!) {
    revokeInvitation(id: $id)
  }
`);

const RemoveMemberMutation = graphql(`
  mutation ConsoleRemoveMember($organizationId: ID!, $userId: ID!) {
    removeMember(organizationId: $organizationId, userId: $userId)
  }
`);

type Member = Organization["members"][number];

function Members({ organizationId, members, viewerRole, refetch }: { organizationId: string; members: Member[]; viewerRole: string; refetch(): void }) {
  const { viewer } = useAuth();
  const canManage = viewerRole === "OWNER" || viewerRole === "ADMIN";
  const removal = useConfirmedMutation(RemoveMemberMutation, {
    variables: (member: Member) => ({ organizationId, userId: member.user.id }),
    success: (member) => `${member.user.name} is no longer a member.`,
    done: () => refetch(),
  });
  const removing = removal.subject;
  return (
    <section className="panel">
      <h2>Members</h2>
      <table className="table" aria-label="Members">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Member since</th>
            {canManage && (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {members.map((member) => (
            <tr key={member.id}>
              <td data-label="Name">
                {member.user.name}
                {member.user.id === viewer?.id && <span className="muted"> (you)</span>}
              </td>
              <td data-label="Email">{member.user.email}</td>
              <td data-label="Role">
                <span className="badge">{roleLabel(member.role)}</span>
              </td>
              <td data-label="Member since">{formatDate(member.createdAt)}</td>
              {canManage && (
                <td className="row-actions">
                  {member.user.id !== viewer?.id && (
                    <button type="button" className="button small danger" onClick={() => removal.ask(member)}>
                      Remove
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">Owners and admins manage deployments, keys and settings; members can look.</p>
      {canManage && <PendingInvitations organizationId={organizationId} viewerRole={viewerRole} />}
      <ConfirmDialog {...removal.dialog} title="Remove this member?" confirmLabel="Remove" danger>
        <p>{removing?.user.name} loses access to this organization and its deployments at once.</p>
      </ConfirmDialog>
    </section>
  );
}

type InvitationRow = NonNullable<ResultOf<typeof InvitationsQuery>["organization"]>["invitations"][number];

/** Pending invitations with Revoke, and the form that adds (or invites) someone. */
function PendingInvitations({ organizationId, viewerRole }: { organizationId: string; viewerRole: string }) {
  const [{ data, error }, refetch] = useQuery({ query: InvitationsQuery, variables: { id: organizationId } });
  const invitations = data?.organization?.invitations ?? [];
  const reload = () => refetch({ requestPolicy: "network-only" });
  const revocation = useConfirmedMutation(RevokeInvitationMutation, {
    variables: (invitation: InvitationRow) => ({ id: invitation.id }),
    success: (invitation) => `The invitation for ${invitation.email} was revoked.`,
    done: reload,
  });
  const revoking = revocation.subject;
  return (
    <>
      <AddMember organizationId={organizationId} viewerRole={viewerRole} onInvited={reload} />
      <div className="subsection">
        <h3>Pending invitations</h3>
        {error && <p className="form-error">{describeError(error)}</p>}
        {!error && invitations.length === 0 ? (
          <p className="muted">No pending invitations.</p>
        ) : (
          <table className="table" aria-label="Pending invitations">
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Invited</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {invitations.map((invitation) => (
                <tr key={invitation.id}>
                  <td data-label="Email">{invitation.email}</td>
                  <td data-label="Role">
                    <span className="badge">{roleLabel(invitation.role)}</span>
                  </td>
                  <td data-label="Invited">
                    {formatDate(invitation.createdAt)}
                    {invitation.invitedBy && <span className="muted"> by {invitation.invitedBy.name}</span>}
                  </td>
                  <td data-label="Expires">{formatDate(invitation.expiresAt)}</td>
                  <td className="row-actions">
                    {/* Only owners change an owner's invitation (the server says so too). */}
                    {(invitation.role !== "OWNER" || viewerRole === "OWNER") && (
                      <button type="button" className="button small danger" onClick={() => revocation.ask(invitation)} aria-label={`Revoke the invitation for ${invitation.email}`}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      <ConfirmDialog {...revocation.dialog} title="Revoke this invitation?" confirmLabel="Revoke" danger>
        <p>The link sent to {revoking?.email} will no longer work.</p>
      </ConfirmDialog>
    </>
  );
}

function AddMember(props: { organizationId: string; viewerRole: string; onInvited(): void }) {
  const { organizationId, viewerRole } = props;
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<"MEMBER" | "ADMIN" | "OWNER">("MEMBER");
  const [issued, setIssued] = useState<{ email: string; link: string }>();
  const [{ fetching, error }, invite] = useMutation(InviteMemberMutation);
  const roleId = useId();
  const fields = fieldErrors(error);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await invite({ organizationId, email, role });
    const invited = result.data?.inviteMember;
    if (invited?.__typename !== "Invitation" || !invited.acceptUrl) return;
    setIssued({ email: invited.email, link: invited.acceptUrl });
    props.onInvited();
    setEmail("");
  };
  return (
    <form className="subsection" onSubmit={submit} aria-label="Invite a member">
      <h3>Invite a member</h3>
      <p className="muted">
        Everyone joins through an invitation link: send it to them yourself (Switchyard sends no email). They open it and log in, or
        sign up, with the invited address. {viewerRole === "OWNER" ? "" : "While sign-up is closed, only an owner's invitation lets someone without an account sign up."}
      </p>
      {issued && (
        <div className="secret-once" role="status">
          <strong>Copy the invitation link for {issued.email} now. It will not be shown again.</strong>
          <div className="secret-line">
            <code data-testid="invitation-link">{issued.link}</code>
            <CopyButton value={issued.link} />
          </div>
          <button type="button" className="button small" onClick={() => setIssued(undefined)}>
            I have sent it
          </button>
        </div>
      )}
      {error && !fields.email && (
        <div className="form-error" role="alert">
          {describeError(error)}
        </div>
      )}
      <div className="inline-form">
        <Field label="Email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} error={fields.email} />
        <div className="field narrow-field">
          <label htmlFor={roleId}>Role</label>
          <select id={roleId} value={role} onChange={(e) => setRole(e.target.value as typeof role)}>
            <option value="MEMBER">Member</option>
            <option value="ADMIN">Admin</option>
            {viewerRole === "OWNER" && <option value="OWNER">Owner</option>}
          </select>
        </div>
        <button type="submit" className="button primary" disabled={fetching || !email.trim()}>
          {fetching ? "Inviting…" : "Invite"}
        </button>
      </div>
    </form>
  );
}
