import type { DeploymentHealth } from "./health.tsx";

/** What the deployment page hands every section. */
export interface SectionProps {
  deploymentId: string;
  /** Owner or admin of the organization: may change settings and see secrets. */
  canManage: boolean;
  /** Forwarding's live health (paused, disabled, a failing endpoint), read once for the page and its navigation. */
  health: DeploymentHealth;
}
