import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * The protocol between run.ts and a server it forks (the service, the raw baseline): announce the
 * port, answer each message with the CPU time used so far (steadier than req/s on a busy machine),
 * and on disconnect stop listening, give abandoned requests a second to finish, then `close`.
 */
export function serveToParent(server: Server, close: () => Promise<void>): void {
  process.send?.({ port: (server.address() as AddressInfo).port });
  process.on("message", () => process.send?.({ cpu: process.cpuUsage() }));
  process.on("disconnect", async () => {
    server.closeAllConnections();
    server.close();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await close();
    process.exit(0);
  });
}
