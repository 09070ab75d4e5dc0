import { useCallback, useRef, useState } from "react";
import { Provider } from "urql";
import { AuthProvider, useAuth, useFirstRun } from "./auth.tsx";
import { createConsoleClient } from "./client.ts";
import { Shell } from "./components/Shell.tsx";
import { Loading } from "./components/States.tsx";
import { Account } from "./pages/Account.tsx";
import { LogIn } from "./pages/LogIn.tsx";
import { NotFound } from "./pages/NotFound.tsx";
import { Organizations } from "./pages/Organizations.tsx";
import { OrganizationPage } from "./pages/OrganizationPage.tsx";
import { SignUp } from "./pages/SignUp.tsx";
import { DeploymentSettings } from "./pages/DeploymentSettings.tsx";
import { InvitationPage } from "./pages/Invitation.tsx";
import { match, Redirect, usePath, useSearchParam } from "./router.tsx";

export function App() {
  const [session, setSession] = useState(createConsoleClient);
  const [generation, setGeneration] = useState(0);
  // The session in use, disposed when it is replaced (log-in, log-out). Not in an effect's cleanup:
  // React runs cleanups of a component that stays mounted too (StrictMode does, on mount), and a
  // disposed websocket client never reconnects, so live events would stop at the first drop.
  const current = useRef(session);
  const sessionChanged = useCallback(() => {
    current.current.dispose();
    current.current = createConsoleClient();
    setSession(current.current);
    setGeneration((n) => n + 1);
  }, []);
  return (
    <Provider value={session.client}>
      <AuthProvider key={generation} sessionChanged={sessionChanged} fallback={<Loading what="Starting the console" />}>
        <Routes />
      </AuthProvider>
    </Provider>
  );
}

function Routes() {
  const path = usePath();
  const { viewer } = useAuth();
  const next = useSearchParam("next");
  const afterLogIn = next?.startsWith("/") && !next.startsWith("//") ? next : "/organizations";
  let params: Record<string, string> | null;

  // An invitation link works logged in (accept, decline) and logged out (log in or sign up through it).
  if ((params = match("/invitations/:token", path))) return <InvitationPage token={params.token} />;
  if (path === "/signup") return viewer ? <Redirect to={afterLogIn} /> : <SignUp />;

  if (path === "/login") return viewer ? <Redirect to={afterLogIn} /> : <LogIn />;
  if (!viewer) return path === "/" ? <Welcome /> : <Redirect to={`/login?next=${encodeURIComponent(path)}`} />;

  if (path === "/") return <Redirect to="/organizations" />;
  if (path === "/organizations") return <Organizations />;
  if (path === "/account") return <Account />;
  if ((params = match("/organizations/:organizationId", path))) return <Redirect to={`/organizations/${params.organizationId}/integration`} />;
  if ((params = match("/organizations/:organizationId/:tab", path)) && (params.tab === "integration" || params.tab === "members")) {
    return <OrganizationPage organizationId={params.organizationId} tab={params.tab} />;
  }
  if ((params = match("/deployments/:deploymentId", path))) return <Redirect to={`/deployments/${params.deploymentId}/overview`} />;
  if ((params = match("/deployments/:deploymentId/settings", path))) return <Redirect to={`/deployments/${params.deploymentId}/api-key`} />;
  if ((params = match("/deployments/:deploymentId/:section", path))) {
    return <DeploymentSettings deploymentId={params.deploymentId} section={params.section} />;
  }
  return (
    <Shell>
      <NotFound />
    </Shell>
  );
}

/** Not logged in at /console/: the first account on a fresh install, else the log-in page. */
function Welcome() {
  const firstRun = useFirstRun();
  if (firstRun === undefined) return <Loading />;
  return <Redirect to={firstRun ? "/signup?first=1" : "/login"} />;
}
