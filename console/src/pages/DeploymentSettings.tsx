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

const DeploymentQuery = graphql(`
  query ConsoleDeployment($id: ID!) {
    deployment(id: $id) { id name organization { id name viewerRole } }
  }
`);

const sections = [
  { slug: "api-key", label: "API Key", Component: ApiKeySection },
  { slug: "connect", label: "Connect settings", Component: ConnectSettingsSection },
  { slug: "forwarding", label: "Trigger Forwarding", Component: ForwardingSection },
  { slug: "signing-secret", label: "Signing secret", Component: SigningSecretSection },
  { slug: "connectors", label: "Connectors", Component: ConnectorsSection },
  { slug: "accounts", label: "Connections", Component: ConnectedAccountsSection },
  { slug: "events", label: "Events", Component: EventsSection },
  { slug: "overview", label: "Overview", Component: OverviewSection },
  { slug: "data", label: "Data", Component: DataSection },
] as const;

/** Deployment Settings: one deployment, its sections in a side menu (tabs on a phone). */
export function DeploymentSettings({ deploymentId, section }: { deploymentId: string; section: string }) {
  const [{ data, fetching, error }, refetch] = useQuery({ query: DeploymentQuery, variables: { id: deploymentId } });
  const deployment = data?.deployment;
  const current = sections.find((s) => s.slug === section);
  const role = deployment?.organization.viewerRole;
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
      {deployment && (
        <>
          <div className="page-head">
            <h1>
              <span className="muted-title">Settings ·</span> {deployment.name}
            </h1>
            {/* What `switchyard listen --deployment` and the GraphQL API ask for. */}
            <p className="muted" role="group" aria-label="Deployment ID">
              ID <code>{deployment.id}</code> <CopyButton value={deployment.id} label="Copy ID" />
            </p>
          </div>
          <div className="settings">
            <nav className="side-nav" aria-label="Deployment settings">
              {sections.map((s) => (
                <Link key={s.slug} to={`/deployments/${deployment.id}/${s.slug}`} aria-current={s.slug === section ? "page" : undefined}>
                  {s.label}
                </Link>
              ))}
            </nav>
            <div className="settings-body">
              {current ? (
                <current.Component key={`${deployment.id}:${current.slug}`} deploymentId={deployment.id} canManage={role === "OWNER" || role === "ADMIN"} />
              ) : (
                <Empty title="No such section">Pick one from the menu.</Empty>
              )}
            </div>
          </div>
        </>
      )}
    </Shell>
  );
}
