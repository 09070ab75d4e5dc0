import { type FormEvent, useEffect, useState } from "react";
import { useClient, useMutation, useQuery } from "urql";
import { useAuth, useSignUpPolicy } from "../auth.tsx";
import { Field } from "../components/Field.tsx";
import { describeError, errorCode, fieldErrors } from "../errors.ts";
import { graphql } from "../generated/gql.ts";
import { Link, navigate, useSearchParam } from "../router.tsx";

const SignUpMutation = graphql(`
  mutation ConsoleSignUp($email: String!, $password: String!, $name: String!, $invitationToken: String) {
    signUp(email: $email, password: $password, name: $name, invitationToken: $invitationToken) { user { id name email } }
  }
`);

const InvitationPreviewQuery = graphql(`
  query ConsoleSignUpInvitation($token: String!) {
    invitation(token: $token) { email role organizationName }
  }
`);

const JoinedQuery = graphql(`
  query ConsoleJoinedOrganizations {
    organizations { id }
  }
`);

/**
 * Sign up; on a fresh install (`?first=1`) it greets the first operator. The session cookie is set
 * by the API. Someone who was invited lands in the organization that invited them.
 */
export function SignUp() {
  const first = useSearchParam("first") === "1";
  // Signing up through an invitation link (/console/invitations/<token> → Sign up).
  const invitationToken = useSearchParam("invitation");
  const [preview] = useQuery({ query: InvitationPreviewQuery, variables: { token: invitationToken ?? "" }, pause: !invitationToken });
  const invitation = preview.data?.invitation;
  const { sessionChanged } = useAuth();
  const [{ fetching, error }, signUp] = useMutation(SignUpMutation);
  const policy = useSignUpPolicy();
  // The first account of an install is let in whatever the policy (the ?first=1 greeting says so).
  const byInvitation = !first && !invitationToken && policy === "CLOSED";
  const client = useClient();
  const [values, setValues] = useState({ name: "", email: "", password: "" });
  const invitedEmail = invitation?.email;
  useEffect(() => {
    if (invitedEmail) setValues((current) => (current.email ? current : { ...current, email: invitedEmail }));
  }, [invitedEmail]);
  const fields = fieldErrors(error);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await signUp({ ...values, invitationToken });
    if (result.error) return;
    const joined = await client.query(JoinedQuery, {}, { requestPolicy: "network-only" }).toPromise();
    const organizations = joined.data?.organizations ?? [];
    // /signup with a viewer redirects to `next` (App.tsx).
    if (organizations.length === 1) navigate(`/signup?next=${encodeURIComponent(`/organizations/${organizations[0].id}/integration`)}`, { replace: true });
    sessionChanged();
  };
  const set = (name: keyof typeof values) => (event: { target: { value: string } }) => setValues({ ...values, [name]: event.target.value });
  return (
    <main className="auth-page">
      <form className="panel auth-card" onSubmit={submit} noValidate>
        <div className="brand big">
          <span className="brand-mark" aria-hidden="true" />
          Switchyard
        </div>
        <h1>{first ? "Welcome — create the first account" : "Create your account"}</h1>
        {first && <p className="muted">Nobody has signed up on this Switchyard yet. The account you create here will own the first organization.</p>}
        {byInvitation && (
          <p className="setup-fix" data-testid="signup-policy">
            Sign-up on this Switchyard is by invitation. Open the invitation link an owner of your organization sent you (Members → Invite);
            if you have not been invited yet, ask them first.
          </p>
        )}
        {invitation && (
          <p className="setup-fix" data-testid="signup-invitation">
            You are joining {invitation.organizationName} as {invitation.role.toLowerCase()}. Sign up with {invitation.email}, the address the
            invitation was sent to.
          </p>
        )}
        {error && Object.keys(fields).length === 0 && (
          <div className="form-error" role="alert">
            {/* Sign-up closed: the server's message says how to get in. */}
            {errorCode(error) === "FORBIDDEN" ? error.graphQLErrors[0].message : describeError(error)}
          </div>
        )}
        <Field label="Your name" name="name" autoComplete="name" required value={values.name} onChange={set("name")} error={fields.name} />
        <Field label="Email" name="email" type="email" autoComplete="email" required value={values.email} onChange={set("email")} error={fields.email} />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          value={values.password}
          onChange={set("password")}
          error={fields.password}
          hint="At least 8 characters. A passphrase is best."
        />
        <button type="submit" className="button primary wide" disabled={fetching}>
          {fetching ? "Creating your account…" : "Sign up"}
        </button>
        <p className="muted center">
          Already have an account? <Link to="/login">Log in</Link>
        </p>
      </form>
    </main>
  );
}
