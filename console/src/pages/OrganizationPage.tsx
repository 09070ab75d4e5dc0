import { type FormEvent, useId, useState } from "react";
import { useMutation, useQuery } from "urql";
import { useAuth } from "../auth.tsx";
import { ConfirmDialog } from "../components/ConfirmDialog.tsx";
import { Field } from "../components/Field.tsx";
import { Shell } from "../components/Shell.tsx";
import { Empty, LoadError, Loading } from "../components/States.tsx";
import { useToast } from "../components/Toasts.tsx";
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

interface DeploymentRow {
  id: string;
  name: string;
  createdAt: string;
  apiKey?: { prefix: string; lastUsedAt?: string | null } | null;
}

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
                <Link to={`/deployments/${deployment.id}/api-key`} className="row-link">
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

const AddMemberMutation = graphql(`
  mutation ConsoleAddMember($organizationId: ID!, $email: String!, $role: Role!) {
    addMember(organizationId: $organizationId, email: $email, role: $role) { id role user { id name email } }
  }
`);

const RemoveMemberMutation = graphql(`
  mutation ConsoleRemoveMember($organizationId: ID!, $userId: ID!) {
    removeMember(organizationId: $organizationId, userId: $userId)
  }
`);

interface Member {
  id: string;
  role: string;
  createdAt: string;
  user: { id: string; name: string; email: string };
}

function Members({ organizationId, members, viewerRole, refetch }: { organizationId: string; members: Member[]; viewerRole: string; refetch(): void }) {
  const { viewer } = useAuth();
  const canManage = viewerRole === "OWNER" || viewerRole === "ADMIN";
  const [removing, setRemoving] = useState<Member>();
  const [removal, remove] = useMutation(RemoveMemberMutation);
  const toast = useToast();
  const confirmRemove = async () => {
    if (!removing) return;
    const result = await remove({ organizationId, userId: removing.user.id });
    setRemoving(undefined);
    if (result.error) return toast.error(describeError(result.error));
    toast.success(`${removing.user.name} is no longer a member.`);
    refetch();
  };
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
                    <button type="button" className="button small danger" onClick={() => setRemoving(member)}>
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
      {canManage && <AddMember organizationId={organizationId} viewerRole={viewerRole} onAdded={refetch} />}
      <ConfirmDialog
        open={Boolean(removing)}
        title="Remove this member?"
        confirmLabel="Remove"
        danger
        busy={removal.fetching}
        onConfirm={confirmRemove}
        onCancel={() => setRemoving(undefined)}
      >
        <p>{removing?.user.name} loses access to this organization and its deployments at once.</p>
      </ConfirmDialog>
    </section>
  );
}

function AddMember({ organizationId, viewerRole, onAdded }: { organizationId: string; viewerRole: string; onAdded(): void }) {
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<"MEMBER" | "ADMIN" | "OWNER">("MEMBER");
  const [{ fetching, error }, add] = useMutation(AddMemberMutation);
  const toast = useToast();
  const roleId = useId();
  const fields = fieldErrors(error);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await add({ organizationId, email, role });
    if (result.data) {
      toast.success(`${result.data.addMember.user.name} added as ${roleLabel(role).toLowerCase()}.`);
      setEmail("");
      onAdded();
    }
  };
  return (
    <form className="subsection" onSubmit={submit} aria-label="Add a member">
      <h3>Add a member</h3>
      <p className="muted">They need a Switchyard account first: ask them to sign up, then add their email here.</p>
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
          {fetching ? "Adding…" : "Add member"}
        </button>
      </div>
    </form>
  );
}
