/**
 * The bytes of request bodies the proxy holds in memory so it can send them again (retries, a
 * refresh after a provider 401). A held body stays held for as long as its provider takes to
 * answer, so without a bound a few slow calls with large bodies could hold any amount of memory:
 * the body gate (src/http/bodyGate.ts) bounds bodies being *read*, this bounds bodies being *held*.
 *
 * - In all, at most `totalBytes` (PROXY_BUFFER_BUDGET) in this process.
 * - One deployment at most a quarter of it, so one tenant's slow provider cannot take it all.
 *
 * A reservation is made for the declared Content-Length (or PROXY_MAX_BODY when the body is
 * chunked) before the body is read, and given back when the proxy is done with the body.
 */
export interface BufferBudget {
  /** Reserves `bytes` for a deployment; the function that gives them back, or undefined when over budget. */
  reserve(deploymentId: string, bytes: number): (() => void) | undefined;
  /** Bytes held now (tests and metrics). */
  held(): number;
}

export function createBufferBudget(totalBytes: number): BufferBudget {
  const perDeployment = Math.floor(totalBytes / 4);
  let held = 0;
  // Only deployments holding something: bounded by the number of bodies held.
  const byDeployment = new Map<string, number>();
  return {
    held: () => held,
    reserve(deploymentId, bytes) {
      const mine = byDeployment.get(deploymentId) ?? 0;
      if (held + bytes > totalBytes || mine + bytes > perDeployment) return undefined;
      held += bytes;
      byDeployment.set(deploymentId, mine + bytes);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        held -= bytes;
        const left = (byDeployment.get(deploymentId) ?? bytes) - bytes;
        if (left > 0) byDeployment.set(deploymentId, left);
        else byDeployment.delete(deploymentId);
      };
    },
  };
}
