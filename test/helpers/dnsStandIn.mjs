/**
 * Stands in for DNS: `answer(hostname)` gives the IPv4 address a name resolves to, or undefined to
 * look it up as usual. It replaces `dns.lookup`, the resolver every lookup goes through (the SSRF
 * guard's and the sockets' alike), until the returned function puts the real one back.
 * test/proxy/privateStore.test.ts installs it in its own process. Preloaded into a service process
 * (`node --import`), this module installs it for the names in DNS_STAND_IN (JSON, name → address).
 */
import dns from "node:dns";
import { syncBuiltinESMExports } from "node:module";

export function installDnsStandIn(answer) {
  const realLookup = dns.lookup;
  dns.lookup = function lookup(hostname, options, callback) {
    const done = typeof options === "function" ? options : callback;
    const all = typeof options === "object" && options !== null && options.all;
    const address = answer(hostname);
    if (!address) return realLookup(hostname, options, callback);
    process.nextTick(() => (all ? done(null, [{ address, family: 4 }]) : done(null, address, 4)));
  };
  syncBuiltinESMExports();
  return () => {
    dns.lookup = realLookup;
    syncBuiltinESMExports();
  };
}

if (process.env.DNS_STAND_IN) {
  const answers = JSON.parse(process.env.DNS_STAND_IN);
  installDnsStandIn((hostname) => answers[hostname]);
}
