/**
 * Preloaded into a service process (`node --import`): the DNS answers of the host names in
 * DNS_STAND_IN (JSON, name → IPv4 address) come from there, as test/proxy/privateStore.test.ts
 * stands them in within its own process. Every other name is looked up as usual.
 */
import dns from "node:dns";
import { syncBuiltinESMExports } from "node:module";

const answers = JSON.parse(process.env.DNS_STAND_IN ?? "{}");
const realLookup = dns.lookup;
dns.lookup = function lookup(hostname, options, callback) {
  const done = typeof options === "function" ? options : callback;
  const all = typeof options === "object" && options !== null && options.all;
  const address = answers[hostname];
  if (!address) return realLookup(hostname, options, callback);
  process.nextTick(() => (all ? done(null, [{ address, family: 4 }]) : done(null, address, 4)));
};
syncBuiltinESMExports();
