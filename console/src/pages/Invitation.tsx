import { useMutation, useQuery } from "urql";
import { useAuth } from "../auth.tsx";
import { Empty, LoadError, Loading } from "../components/States.tsx";
import { useToast } from "../components/Toasts.tsx";
import { describeError } from "../errors.ts";
import { graphql } from "../generated/gql.ts";
import { formatDate } from "../format.ts";
import { Link, navigate } from "../router.tsx";
import { roleLabel } from "./Organizations.tsx";

const InvitationQuery = graphql(`
  query ConsoleInvitation($token: String!) {
    invitation(token: $token) { id email role organizationName expiresAt invitedBy { name } }
  }
`);

const AcceptMutation = graphql(`
  mutation ConsoleAcceptInvitation($token: String!) {
    acceptInvitation(token: $token) { id name viewerRole }
  }
`);

const LogOutMutation = graphql(`
  mutation ConsoleInvitationLogOut {
    logOut
  }
`);

const DeclineMutation = graphql(`
  mutation ConsoleDeclineInvitation($id: ID!) {
    declineInvitation(id: $id)
  }
`);

/**
 * /console/invitations/<token>: the link an owner or admin sent. Logged in with the invited
 * address: Accept or Decline. Otherwise: log in with that address, or sign up through the link.
 */
export function InvitationPage({ token }: { token: string }) {
  const { viewer, sessionChanged } = useAuth();
  const [{ data, fetching, error }, refetch] = useQuery({ query: InvitationQuery, variables: { token }, requestPolicy: "network-only" });
  const [accepting, accept] = useMutation(AcceptMutation);
  const [declining, decline] = useMutation(DeclineMutation);
  const toast = useToast();
  const invitation = data?.invitation;
  const here = `/invitations/${encodeURIComponent(token)}`;

  const onAccept = async () => {
    const result = await accept({ token });
    if (result.error) return toast.error(describeError(result.error));
    const organization = result.data!.acceptInvitation;
    toast.success(`You joined ${organization.name} as ${roleLabel(organization.viewerRole).toLowerCase()}.`);
    navigate(`/organizations/${organization.id}/integration`);
  };
  const onDecline = async () => {
    if (!invitation) return;
    const result = await decline({ id: invitation.id });
    if (result.error) return toast.error(describeError(result.error));
    toast.success(`You declined the invitation to ${invitation.organizationName}.`);
    navigate("/organizations");
  };
  const [, logOut] = useMutation(LogOutMutation);
  const logOutAndBack = async () => {
    const result = await logOut({});
    if (result.error) return toast.error(describeError(result.error));
    sessionChanged(); // this page again, logged out: log in or sign up with the invited address
  };

  return (
    <main className="auth-page">
      <section className="panel auth-card" aria-labelledby="invitation-heading">
        <div className="brand big">
          <span className="brand-mark" aria-hidden="true" />
          Switchyard
        </div>
        {error && !data && <LoadError error={error} retry={() => refetch({ requestPolicy: "network-only" })} />}
        {fetching && !data && <Loading what="Opening the invitation" />}
        {data && !invitation && (
          <>
            <h1 id="invitation-heading">This invitation link is not valid</h1>
            <Empty title="It may have expired, been revoked, been replaced by a newer link, or been used already.">
              Ask whoever invited you for a new link.
            </Empty>
            <p className="muted center">
              <Link to="/">Go to the console</Link>
            </p>
          </>
        )}
        {invitation && (
          <>
            <h1 id="invitation-heading">Join {invitation.organizationName}</h1>
            <dl className="facts">
              <div>
                <dt>Role</dt>
                <dd>{roleLabel(invitation.role)}</dd>
              </div>
              <div>
                <dt>Sent to</dt>
                <dd>{invitation.email}</dd>
              </div>
              {invitation.invitedBy && (
                <div>
                  <dt>Invited by</dt>
                  <dd>{invitation.invitedBy.name}</dd>
                </div>
              )}
              <div>
                <dt>Expires</dt>
                <dd>{formatDate(invitation.expiresAt)}</dd>
              </div>
            </dl>
            {viewer && viewer.email === invitation.email && (
              <div className="actions">
                <button type="button" className="button primary" onClick={onAccept} disabled={accepting.fetching || declining.fetching}>
                  {accepting.fetching ? "Joining…" : "Accept and join"}
                </button>
                <button type="button" className="button" onClick={onDecline} disabled={accepting.fetching || declining.fetching}>
                  Decline
                </button>
              </div>
            )}
            {viewer && viewer.email !== invitation.email && (
              <div className="setup-fix" role="note">
                <p>
                  This invitation was sent to {invitation.email}, and you are logged in as {viewer.email}. Only the invited address can accept
                  it.
                </p>
                <button type="button" className="button" onClick={logOutAndBack}>
                  Log out and use {invitation.email}
                </button>
              </div>
            )}
            {!viewer && (
              <>
                <p>Log in with {invitation.email} to accept, or create an account with that address.</p>
                <div className="actions">
                  <Link className="button primary" to={`/login?next=${encodeURIComponent(here)}`}>
                    Log in to accept
                  </Link>
                  <Link className="button" to={`/signup?invitation=${encodeURIComponent(token)}`}>
                    Sign up with {invitation.email}
                  </Link>
                </div>
              </>
            )}
          </>
        )}
      </section>
    </main>
  );
}
