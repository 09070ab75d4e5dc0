import { type FormEvent, useState } from "react";
import { useMutation } from "urql";
import { useAuth, useSignUpPolicy } from "../auth.tsx";
import { Field } from "../components/Field.tsx";
import { describeError } from "../errors.ts";
import { graphql } from "../generated/gql.ts";
import { Link } from "../router.tsx";

const LogInMutation = graphql(`
  mutation ConsoleLogIn($email: String!, $password: String!) {
    logIn(email: $email, password: $password) { user { id name email } }
  }
`);

export function LogIn() {
  // Open or by invitation (SIGNUP): the sign-up link must not promise an account to everyone.
  const policy = useSignUpPolicy();
  const { sessionChanged } = useAuth();
  const [{ fetching, error }, logIn] = useMutation(LogInMutation);
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await logIn({ email, password });
    if (!result.error) sessionChanged();
  };
  return (
    <main className="auth-page">
      <form className="panel auth-card" onSubmit={submit}>
        <div className="brand big">
          <span className="brand-mark" aria-hidden="true" />
          Switchyard
        </div>
        <h1>Log in to the console</h1>
        {error && (
          <div className="form-error" role="alert">
            {describeError(error)}
          </div>
        )}
        <Field label="Email" name="email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <button type="submit" className="button primary wide" disabled={fetching}>
          {fetching ? "Logging in…" : "Log in"}
        </button>
        {policy && (
          <p className="muted center">
            {policy === "CLOSED" ? (
              <>
                Invited? <Link to="/signup">Create your account</Link>
              </>
            ) : (
              <>
                New here? <Link to="/signup">Create an account</Link>
              </>
            )}
          </p>
        )}
      </form>
    </main>
  );
}
