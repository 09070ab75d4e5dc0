/** See dnsStandIn.mjs. */
export function installDnsStandIn(answer: (hostname: string) => string | undefined): () => void;
