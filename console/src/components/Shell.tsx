import type { ReactNode } from "react";
import { useMutation } from "urql";
import { useAuth } from "../auth.tsx";
import { graphql } from "../generated/gql.ts";
import { describeError } from "../errors.ts";
import { Link, navigate } from "../router.tsx";
import { useToast } from "./Toasts.tsx";

const LogOutMutation = graphql(`
  mutation ConsoleLogOut {
    logOut
  }
`);

export interface Crumb {
  label: string;
  to?: string;
}

/** The frame of every logged-in page: the brand, where you are, who you are (a link to the account page) and Log out. */
export function Shell({ crumbs = [], children }: { crumbs?: Crumb[]; children: ReactNode }) {
  const { viewer, sessionChanged } = useAuth();
  const [{ fetching }, logOut] = useMutation(LogOutMutation);
  const toast = useToast();
  const onLogOut = async () => {
    const result = await logOut({});
    if (result.error) {
      toast.error(describeError(result.error));
      return;
    }
    // A fresh client first (nothing cached for this user survives), then the log-in page.
    sessionChanged();
    navigate("/login");
  };
  return (
    <div className="shell">
      <header className="topbar">
        <Link to="/organizations" className="brand">
          <span className="brand-mark" aria-hidden="true" />
          Switchyard
        </Link>
        <nav aria-label="Breadcrumb" className="crumbs">
          {crumbs.map((crumb, i) => (
            <span key={i} className="crumb">
              {crumb.to ? <Link to={crumb.to}>{crumb.label}</Link> : <span aria-current="page">{crumb.label}</span>}
            </span>
          ))}
        </nav>
        {viewer && (
          <div className="user">
            <Link to="/account" className="user-name" title={`${viewer.email}: your account`}>
              {viewer.name}
            </Link>
            <button type="button" className="button small" onClick={onLogOut} disabled={fetching}>
              Log out
            </button>
          </div>
        )}
      </header>
      <main className="content">{children}</main>
    </div>
  );
}
