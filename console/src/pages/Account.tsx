import { type FormEvent, useState } from "react";
import { useMutation } from "urql";
import { useAuth } from "../auth.tsx";
import { ConfirmDialog } from "../components/ConfirmDialog.tsx";
import { Field } from "../components/Field.tsx";
import { Shell } from "../components/Shell.tsx";
import { useToast } from "../components/Toasts.tsx";
import { useConfirmedMutation } from "../components/useConfirmedMutation.ts";
import { describeError, fieldErrors } from "../errors.ts";
import { graphql } from "../generated/gql.ts";
import { navigate } from "../router.tsx";

const ChangePasswordMutation = graphql(`
  mutation ConsoleChangePassword($currentPassword: String!, $newPassword: String!) {
    changePassword(currentPassword: $currentPassword, newPassword: $newPassword)
  }
`);

const LogOutEverywhereMutation = graphql(`
  mutation ConsoleLogOutEverywhere {
    logOutEverywhere
  }
`);

/** The logged-in user's own account: who they are, a new password, and ending every session. */
export function Account() {
  const { viewer } = useAuth();
  return (
    <Shell crumbs={[{ label: "Account" }]}>
      <div className="page-head">
        <h1>Your account</h1>
      </div>
      <section className="panel">
        <h2>Profile</h2>
        <p>
          {viewer?.name} · <span className="muted">{viewer?.email}</span>
        </p>
      </section>
      <ChangePassword />
      <LogOutEverywhere />
    </Shell>
  );
}

function ChangePassword() {
  const [{ fetching, error }, change] = useMutation(ChangePasswordMutation);
  const [values, setValues] = useState({ currentPassword: "", newPassword: "" });
  const toast = useToast();
  const fields = fieldErrors(error);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await change(values);
    if (result.data?.changePassword) {
      setValues({ currentPassword: "", newPassword: "" });
      toast.success("Password changed. Every other session has been logged out.");
    }
  };
  const set = (name: keyof typeof values) => (event: { target: { value: string } }) => setValues({ ...values, [name]: event.target.value });
  return (
    <form className="panel" onSubmit={submit} aria-label="Change password" noValidate>
      <h2>Change password</h2>
      <p className="muted">You stay logged in here; every other browser and token of yours is logged out.</p>
      {error && Object.keys(fields).length === 0 && (
        <div className="form-error" role="alert">
          {describeError(error)}
        </div>
      )}
      <Field
        label="Current password"
        name="currentPassword"
        type="password"
        autoComplete="current-password"
        required
        value={values.currentPassword}
        onChange={set("currentPassword")}
        error={fields.currentPassword}
      />
      <Field
        label="New password"
        name="newPassword"
        type="password"
        autoComplete="new-password"
        required
        value={values.newPassword}
        onChange={set("newPassword")}
        error={fields.newPassword}
        hint="At least 8 characters. A passphrase is best."
      />
      <button type="submit" className="button primary" disabled={fetching || !values.currentPassword || !values.newPassword}>
        {fetching ? "Changing…" : "Change password"}
      </button>
    </form>
  );
}

function LogOutEverywhere() {
  const { sessionChanged } = useAuth();
  const logOut = useConfirmedMutation(LogOutEverywhereMutation, {
    variables: () => ({}),
    done: () => {
      sessionChanged();
      navigate("/login");
    },
  });
  return (
    <section className="panel">
      <h2>Log out everywhere</h2>
      <p className="muted">Ends every session of your account — this browser, others, and tokens given to the CLI. Use it if a device was lost or shared.</p>
      <button type="button" className="button danger" onClick={() => logOut.ask()}>
        Log out everywhere
      </button>
      <ConfirmDialog {...logOut.dialog} title="Log out everywhere?" confirmLabel="Log out everywhere" danger>
        <p>Every session of your account ends now, including this one. You will need your password to log in again.</p>
      </ConfirmDialog>
    </section>
  );
}
