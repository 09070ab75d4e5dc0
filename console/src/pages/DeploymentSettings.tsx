import { useQuery } from "urql";
import { CopyButton } from "../components/CopyButton.tsx";
import { Shell } from "../components/Shell.tsx";
import { Empty, LoadError, Loading } from "../components/States.tsx";
import { graphql } from "../generated/gql.ts";
import { Link } from "../router.tsx";
import { ApiKeySection } from "../settings/ApiKeySection.tsx";
import { ConnectSettingsSection } from "../settings/ConnectSettingsSection.tsx";
import { ConnectedAccountsSection } from "../settings/ConnectedAccountsSection.tsx";
import { ConnectorsSection } from "../settings/ConnectorsSection.tsx";
import { DataSection } from "../settings/DataSection.tsx";
import { EventsSection } from "../settings/events/EventsSection.tsx";
import { ForwardingSection } from "../settings/ForwardingSection.tsx";
import { OverviewSection } from "../settings/OverviewSection.tsx";
import { SigningSecretSection } from "../settings/SigningSecretSection.tsx";
import { healthBadge, useDeploymentHealth } from "../settings/health.tsx";

const DeploymentQuery = graphql(`
  query ConsoleDeployment($id: ID!) {
    deployment(id: $id) { id name organization { id name viewerRole } }
  }
`);

/** The deployment's own pages, each at full width: what an operator looks at. */
const pages = [
  { slug: "overview", label: "Overview", Component: OverviewSection },
  { slug: "events", label: "Events", Component: EventsSection },
  { slug: "accounts", label: "Connections", Component: ConnectedAccountsSection },
  { slug: "data", label: "Data", Component: DataSection },
] as const;

/** Settings: what an operator sets up once, each in the side menu of the Settings page. */
const settings = [
  { slug: "api-key", label: "API Key", Component: ApiKeySection },
  { slug: "connect", label: "Connect settings", Component: ConnectSettingsSection },
  { slug: "forwarding", label: "Trigger Forwarding", Component: ForwardingSection },
  { slug: "signing-secret", label: "Signing secret", Component: SigningSecretSection },
  { slug: "connectors", label: "Connectors", Component: ConnectorsSection },
] as const;

/**
 * One deployment: Overview (where it opens), Events, Connections and Data as pages of their own,
 * and Settings with its sections in a side menu (tabs on a phone). The navigation carries
 * forwarding's health as a badge (paused, disabled, an endpoint failing), read once here and
 * handed to each page that shows forwarding.
 */
export function DeploymentSettings({ deploymentId, section }: { deploymentId: string; section: string }) {
  const [{ data, fetching, error }, refetch] = useQuery({ query: DeploymentQuery, variables: { id: deploymentId } });
  const health = useDeploymentHealth(deploymentId);
  const deployment = data?.deployment;
  const page = pages.find((p) => p.slug === section);
  const setting = settings.find((s) => s.slug === section);
  const current = page ?? setting;
  const role = deployment?.organization.viewerRole;
  const badge = healthBadge(health.data);
  const props = deployment ? { deploymentId: deployment.id, canManage: role === "OWNER" || role === "ADMIN", health } : undefined;
  return (
    <Shell
      crumbs={[
        { label: "Organizations", to: "/organizations" },
        { label: deployment?.organization.name ?? "…", to: deployment ? `/organizations/${deployment.organization.id}/integration` : undefined },
        { label: deployment?.name ?? "…" },
      ]}
    >
      {error && !deployment && <LoadError error={error} retry={() => refetch({ requestPolicy: "network-only" })} />}
      {fetching && !data && <Loading what="Loading the deployment" />}
      {data && !deployment && !error && <Empty title="This deployment was not found">It may have been deleted, or you are not a member of its organization.</Empty>}
      {deployment && props && (
        <>
          <div className="page-head">
            {/* The page's own heading (h2) names what is shown; the tabs mark where you are. */}
            <h1>{deployment.name}</h1>
            {/* What `switchyard listen --deployment` and the GraphQL API ask for. */}
            <p className="muted" role="group" aria-label="Deployment ID">
              ID <code>{deployment.id}</code> <CopyButton value={deployment.id} label="Copy ID" />
            </p>
            <p className="muted page-links">
              <a href="/docs/api">API reference</a> · <a href={graphiqlLink(deployment.id)}>GraphiQL</a>
            </p>
          </div>
          <nav className="tabs deployment-nav" aria-label="Deployment">
            {pages.map((p) => (
              <Link key={p.slug} to={`/deployments/${deployment.id}/${p.slug}`} aria-current={p.slug === section ? "page" : undefined}>
                {p.label}
              </Link>
            ))}
            <Link to={`/deployments/${deployment.id}/api-key`} aria-current={setting ? "page" : undefined}>
              Settings
            </Link>
            {badge && (
              <Link to={`/deployments/${deployment.id}/overview`} className={`badge ${badge.tone} nav-badge`} data-testid="nav-health">
                {badge.text}
              </Link>
            )}
          </nav>
          {page && <page.Component key={`${deployment.id}:${page.slug}`} {...props} />}
          {setting && (
            <div className="settings">
              <nav className="side-nav" aria-label="Deployment settings">
                {settings.map((s) => (
                  <Link key={s.slug} to={`/deployments/${deployment.id}/${s.slug}`} aria-current={s.slug === section ? "page" : undefined}>
                    {s.label}
                  </Link>
                ))}
              </nav>
              <div className="settings-body">
                <setting.Component key={`${deployment.id}:${setting.slug}`} {...props} />
              </div>
            </div>
          )}
          {!current && <Empty title="No such page">Pick one from the menu.</Empty>}
        </>
      )}
    </Shell>
  );
}

/** GraphiQL opened on a query that works for this deployment, not on boilerplate. */
function graphiqlLink(deploymentId: string): string {
  const query = `# This deployment's delivery health and latest events.
query Deployment($id: ID!) {
  deployment(id: $id) {
    name
    forwardingSettings { forwardingUrl status }
    deliveryStats(hours: 24) { attempts attemptSuccessRate failingEndpoint { consecutiveFailures lastStatusCode nextAttemptAt } }
    eventLog(first: 5) { nodes { id type receivedAt deliveries { status attempts } } }
  }
}
`;
  return `/graphql?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(JSON.stringify({ id: deploymentId }))}`;
}
