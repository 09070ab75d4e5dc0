/**
 * API keys generated in this tab, kept in memory only (never in storage): the Connectors page can
 * create a test authorization URL with the key you generated a moment ago without asking for it
 * again. A reload forgets them, as the "shown once" promise requires.
 */
const keys = new Map<string, string>();

export const rememberApiKey = (deploymentId: string, key: string) => void keys.set(deploymentId, key);
export const recentApiKey = (deploymentId: string): string | undefined => keys.get(deploymentId);
