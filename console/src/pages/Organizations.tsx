import { type FormEvent, useState } from "react";
import { useMutation, useQuery } from "urql";
import { Field } from "../components/Field.tsx";
import { Shell } from "../components/Shell.tsx";
import { Empty, LoadError, Loading } from "../components/States.tsx";
import { useToast } from "../components/Toasts.tsx";
import { formatDate } from "../format.ts";
import { describeError, fieldErrors } from "../errors.ts";
import { graphql } from "../generated/gql.ts";
import { Link, navigate } from "../router.tsx";

const OrganizationsQuery = graphql(`
  query ConsoleOrganizations {
    organizations { id name viewerRole deployments { id } }
  }
`);

const MyInvitationsQuery = graphql(`
  query ConsoleMyInvitations {
    viewer { id invitations { id organizationName role expiresAt invitedBy { name } } }
  }
`);

const DeclineMyInvitationMutation = graphql(`
  mutation ConsoleDeclineMyInvitation($id: ID!) {
    declineInvitation(id: $id)
  }
`);

const CreateOrganizationMutation = graphql(`
  mutation ConsoleCreateOrganization($name: String!) {
    createOrganization(name: $name) { id name }
  }
`);

/** The organization picker: pick one to work in, or create one (a new one starts with development and production). */
export function Organizations() {
  const [{ data, fetching, error }, refetch] = useQuery({ query: OrganizationsQuery });
  const organizations = data?.organizations ?? [];
  return (
    <Shell crumbs={[{ label: "Organizations" }]}>
      <div className="page-head">
        <h1>Select an organization</h1>
      </div>
      {error && !data && <LoadError error={error} retry={() => refetch({ requestPolicy: "network-only" })} />}
      {fetching && !data && <Loading what="Loading your organizations" />}
      {data && organizations.length === 0 && (
        <Empty title="You are not in any organization yet">Create one below to get your first deployments and API key.</Empty>
      )}
      {organizations.length > 0 && (
        <ul className="cards" aria-label="Your organizations">
          {organizations.map((organization) => (
            <li key={organization.id}>
              <Link to={`/organizations/${organization.id}/integration`} className="card">
                <strong>{organization.name}</strong>
                <span className="muted">
                  {organization.deployments.length} deployment{organization.deployments.length === 1 ? "" : "s"} · {roleLabel(organization.viewerRole)}
                </span>
              </Link>
            </li>
          ))}
        </ul>
      )}
      <MyInvitations />
      {data && <CreateOrganization first={organizations.length === 0} />}
    </Shell>
  );
}

/** Invitations sent to the viewer's address: accepted through the link the inviter sent, declined here. */
function MyInvitations() {
  const [{ data }, refetch] = useQuery({ query: MyInvitationsQuery, requestPolicy: "network-only" });
  const [{ fetching }, decline] = useMutation(DeclineMyInvitationMutation);
  const toast = useToast();
  const invitations = data?.viewer?.invitations ?? [];
  if (invitations.length === 0) return null;
  const onDecline = async (id: string, organizationName: string) => {
    const result = await decline({ id });
    if (result.error) return toast.error(describeError(result.error));
    toast.success(`You declined the invitation to ${organizationName}.`);
    refetch({ requestPolicy: "network-only" });
  };
  return (
    <section className="panel">
      <h2>Invitations for you</h2>
      <p className="muted">To accept, open the invitation link you were sent: it is the proof that the invitation was meant for you.</p>
      <ul className="rows" aria-label="Invitations for you">
        {invitations.map((invitation) => (
          <li key={invitation.id} className="row-link">
            <span className="row-main">
              <strong>{invitation.organizationName}</strong>
              <span className="muted">
                as {roleLabel(invitation.role).toLowerCase()}
                {invitation.invitedBy ? `, from ${invitation.invitedBy.name}` : ""} · expires {formatDate(invitation.expiresAt)}
              </span>
            </span>
            <span className="row-side">
              <button
                type="button"
                className="button small"
                disabled={fetching}
                onClick={() => onDecline(invitation.id, invitation.organizationName)}
                aria-label={`Decline the invitation to ${invitation.organizationName}`}
              >
                Decline
              </button>
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function roleLabel(role: string | null | undefined): string {
  return role ? role.charAt(0) + role.slice(1).toLowerCase() : "Member";
}

function CreateOrganization({ first }: { first: boolean }) {
  const [name, setName] = useState("");
  const [{ fetching, error }, create] = useMutation(CreateOrganizationMutation);
  const fields = fieldErrors(error);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await create({ name });
    if (result.data) navigate(`/organizations/${result.data.createOrganization.id}/integration`);
  };
  return (
    <form className="panel" onSubmit={submit}>
      <h2>{first ? "Create your organization" : "Create another organization"}</h2>
      <p className="muted">It starts with two deployments, development and production, each with its own keys and settings.</p>
      {error && !fields.name && (
        <div className="form-error" role="alert">
          {describeError(error)}
        </div>
      )}
      <div className="inline-form">
        <Field label="Organization name" name="organizationName" required value={name} onChange={(e) => setName(e.target.value)} error={fields.name} placeholder="Acme Inc." />
        <button type="submit" className="button primary" disabled={fetching || !name.trim()}>
          {fetching ? "Creating…" : "Create organization"}
        </button>
      </div>
    </form>
  );
}
