import { type FormEvent, useState } from "react";
import { useMutation } from "urql";
import { useAuth } from "../auth.tsx";
import { Field } from "../components/Field.tsx";
import { describeError, fieldErrors } from "../errors.ts";
import { graphql } from "../generated/gql.ts";
import { Link, useSearchParam } from "../router.tsx";

const SignUpMutation = graphql(`
  mutation ConsoleSignUp($email: String!, $password: String!, $name: String!) {
    signUp(email: $email, password: $password, name: $name) { user { id name email } }
  }
`);

/** Sign up; on a fresh install (`?first=1`) it greets the first operator. The session cookie is set by the API. */
export function SignUp() {
  const first = useSearchParam("first") === "1";
  const { sessionChanged } = useAuth();
  const [{ fetching, error }, signUp] = useMutation(SignUpMutation);
  const [values, setValues] = useState({ name: "", email: "", password: "" });
  const fields = fieldErrors(error);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await signUp(values);
    if (!result.error) sessionChanged();
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
        {error && Object.keys(fields).length === 0 && (
          <div className="form-error" role="alert">
            {describeError(error)}
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
