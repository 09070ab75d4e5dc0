import { parseArgs, type ParseArgsConfig } from "node:util";
import { printable, version } from "./connection.ts";
import { listen, listenHelp, listenOptions } from "./listen.ts";
import { migrate, migrateHelp } from "./migrate.ts";
import { trigger, triggerHelp, triggerOptions } from "./trigger.ts";

/**
 * `switchyard <command>`: what an operator scripts (serve, migrate) and what a developer runs
 * beside their code (listen). Service settings come from the environment, as for `npm start`
 * (see README); command options are flags.
 */

const mainHelp = `Usage: switchyard <command> [options]

Commands:
  serve     Run the service (the same as \`npm start\`), configured by environment variables.
  migrate   Apply pending database migrations, then exit.
  listen    Watch a deployment's forwarded events live and, optionally, forward them to a local URL.
  trigger   Send a test event (<connector>.<trigger>, e.g. github.issue_opened) through the pipeline.

Run \`switchyard <command> --help\` for a command's options; \`switchyard --version\` prints the version.
`;

const serveHelp = `Usage: switchyard serve

Runs Switchyard: REST, GraphQL (with subscriptions over graphql-ws and SSE), the console and the
delivery worker, on PORT (default 4000). It is configured by environment variables: DATABASE_URL
(unset: the embedded database in DATA_DIR), REDIS_URL, ENCRYPTION_KEY, PUBLIC_URL, … (see README).
Stops cleanly on SIGINT/SIGTERM.
`;

type Command = {
  help: string;
  options?: ParseArgsConfig["options"];
  /** Takes positional arguments (only `trigger` does). */
  positionals?: boolean;
  run: (values: Record<string, unknown>, positionals: string[]) => Promise<number | void>;
};

const commands: Record<string, Command> = {
  serve: {
    help: serveHelp,
    run: async () => {
      await import("../main.ts"); // main.ts runs the process and owns its exit
      return new Promise<never>(() => {});
    },
  },
  migrate: { help: migrateHelp, run: () => migrate() },
  listen: { help: listenHelp, options: listenOptions, run: (values) => listen(values) },
  trigger: { help: triggerHelp, options: triggerOptions, positionals: true, run: (values, positionals) => trigger(values, positionals) },
};

async function run(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === "--version" || name === "-v" || name === "version") {
    process.stdout.write(`switchyard ${version}\n`);
    return 0;
  }
  if (!name || name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(mainHelp);
    return name ? 0 : 2;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`Unknown command "${printable(name)}".\n\n${mainHelp}`);
    return 2;
  }
  let values: Record<string, unknown>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: rest,
      options: { ...command.options, help: { type: "boolean", short: "h" } },
      allowPositionals: command.positionals === true,
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`${printable((error as Error).message)}\nRun \`switchyard ${name} --help\` for its options.\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(command.help);
    return 0;
  }
  return (await command.run(values, positionals)) ?? 0;
}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`switchyard: ${printable(error instanceof Error ? error.message : String(error))}\n`);
    process.exit(1);
  },
);
