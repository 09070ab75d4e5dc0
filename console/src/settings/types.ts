/** What the Deployment Settings page hands every section. */
export interface SectionProps {
  deploymentId: string;
  /** Owner or admin of the organization: may change settings and see secrets. */
  canManage: boolean;
}
