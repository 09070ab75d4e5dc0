import type { ResultOf } from "@graphql-typed-document-node/core";
import { createContext, type ReactNode, useContext, useEffect, useState } from "react";
import { useQuery } from "urql";
import { graphql } from "./generated/gql.ts";

const ViewerQuery = graphql(`
  query ConsoleViewer {
    viewer { id name email }
  }
`);

const SignUpPolicyQuery = graphql(`
  query ConsoleSignUpPolicy {
    signUpPolicy
  }
`);

export type Viewer = NonNullable<ResultOf<typeof ViewerQuery>["viewer"]>;

interface Auth {
  viewer: Viewer | null;
  /** Call after logIn/signUp/logOut: the session cookie changed, so start afresh. */
  sessionChanged(): void;
}

const AuthContext = createContext<Auth | null>(null);

/** Who is logged in, from `viewer` over the session cookie; a spinner until it is known. */
export function AuthProvider({ children, sessionChanged, fallback }: { children: ReactNode; sessionChanged(): void; fallback: ReactNode }) {
  const [{ data, fetching, error }] = useQuery({ query: ViewerQuery, requestPolicy: "network-only" });
  if (fetching && !data) return <>{fallback}</>;
  const viewer = error ? null : (data?.viewer ?? null);
  return <AuthContext.Provider value={{ viewer, sessionChanged }}>{children}</AuthContext.Provider>;
}

export function useAuth(): Auth {
  const auth = useContext(AuthContext);
  if (!auth) throw new Error("useAuth outside AuthProvider");
  return auth;
}

/** True on a fresh install where nobody has signed up yet (GET /console/api/status). */
export function useFirstRun(): boolean | undefined {
  const [firstRun, setFirstRun] = useState<boolean>();
  useEffect(() => {
    let live = true;
    fetch("/console/api/status", { credentials: "same-origin" })
      .then((response) => (response.ok ? response.json() : { firstRun: false }))
      .then((body: { firstRun?: boolean }) => live && setFirstRun(Boolean(body.firstRun)))
      .catch(() => live && setFirstRun(false));
    return () => {
      live = false;
    };
  }, []);
  return firstRun;
}

/** OPEN, or CLOSED (only the first account and invited addresses: SIGNUP=closed); undefined until known. */
export function useSignUpPolicy(): "OPEN" | "CLOSED" | undefined {
  const [{ data }] = useQuery({ query: SignUpPolicyQuery });
  return data?.signUpPolicy;
}
