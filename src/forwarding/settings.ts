import type { Clock } from "../clock.ts";
import { findConnector } from "../connectors/registry.ts";
import type { SecretBox } from "../crypto/secrets.ts";
import type { Db } from "../db/database.ts";
import type { DeliveryQueue } from "../delivery/queue/index.ts";
import { badInput, type FieldError } from "../errors.ts";
import { checkUrlTarget } from "../net/ssrf.ts";

/**
 * A deployment's Forwarding Settings and its Forwarding Trigger List, as the console edits them.
 * The header value is sealed at rest and never leaves the service: callers see `headerValueSet`.
 */

export interface TriggerRef {
  connector: string;
  trigger: string;
}

export interface ForwardingSettingsInput {
  forwardingUrl: string;
  headerKey?: string | null;
  /** Omitted or empty with a headerKey ⇒ keep the stored value (the console shows it masked). */
  headerValue?: string | null;
  triggers: TriggerRef[];
}

export interface ForwardingSettingsView {
  deploymentId: string;
  forwardingUrl: string;
  headerKey: string | null;
  headerValueSet: boolean;
  triggers: TriggerRef[];
  status: "ACTIVE" | "PAUSED" | "DISABLED";
  disabledReason: string | null;
  /** When the current pause or disable began. */
  statusChangedAt: Date | null;
  /** The start of the current run of failed attempts (null when the last attempt succeeded). */
  failingSince: Date | null;
  lastSuccessAt: Date | null;
  updatedAt: Date;
}

/** Headers the service sets itself (or the HTTP stack does): an operator header may not replace them. */
const RESERVED_HEADERS = new Set(["content-type", "content-length", "host", "user-agent", "connection", "transfer-encoding", "te", "trailer", "upgrade", "keep-alive", "expect"]);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/; // RFC 9110 §5.6.2 token
// RFC 9110 §5.5 field-value: visible ASCII and obs-text (\x80-\xff), with spaces and tabs only
// between them. Anything else (a control character, a character HTTP/1.1 cannot carry) would be
// accepted here and then make every delivery fail at send time.
const FIELD_VALUE = /^[\x21-\x7e\x80-\xff]([\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?$/;
const MAX_URL_LENGTH = 2048;
const MAX_HEADER_VALUE_LENGTH = 4096;
/**
 * The most triggers one save may list: every trigger of a couple of the largest connectors (GitHub
 * alone offers about 300), and still a bound on the work and on the size of the answer.
 */
export const MAX_TRIGGERS = 1000;
/** A bad save names at most this many problems: enough to fix a form, not an amplifier. */
export const MAX_REPORTED_ERRORS = 50;

export async function getForwardingSettings(db: Db, deploymentId: string): Promise<ForwardingSettingsView | null> {
  const [settings, triggers] = await Promise.all([
    db.forwardingSettings.findUnique({ where: { deploymentId } }),
    db.forwardingTrigger.findMany({ where: { deploymentId }, orderBy: [{ connector: "asc" }, { trigger: "asc" }] }),
  ]);
  if (!settings) return null;
  return {
    deploymentId,
    forwardingUrl: settings.forwardingUrl,
    headerKey: settings.headerKey,
    headerValueSet: settings.headerValueEncrypted !== null,
    triggers: triggers.map(({ connector, trigger }) => ({ connector, trigger })),
    status: settings.status,
    disabledReason: settings.disabledReason,
    statusChangedAt: settings.statusChangedAt,
    failingSince: settings.failingSince,
    lastSuccessAt: settings.lastSuccessAt,
    updatedAt: settings.updatedAt,
  };
}

/**
 * The triggers of one connector on the deployment's Forwarding Trigger List, by name: what the
 * consent page tells an end user is passed on (the list, not the connector's whole catalog).
 */
export async function listedTriggers(db: Db, deploymentId: string, connector: string): Promise<string[]> {
  const rows = await db.forwardingTrigger.findMany({ where: { deploymentId, connector }, orderBy: { trigger: "asc" }, select: { trigger: true } });
  return rows.map((row) => row.trigger);
}

/** The console's "Save Changes": URL, header and the whole trigger list replaced in one transaction. */
export async function saveForwardingSettings(
  { db, box, deliveries, allowPrivateTargets, clock }: { db: Db; box: SecretBox; deliveries: DeliveryQueue; allowPrivateTargets: boolean; clock: Clock },
  deploymentId: string,
  input: ForwardingSettingsInput,
): Promise<ForwardingSettingsView> {
  const existing = await db.forwardingSettings.findUnique({ where: { deploymentId } });
  const fields: FieldError[] = [];

  const url = await validateForwardingUrl(input.forwardingUrl, allowPrivateTargets, fields);
  const header = validateHeader(input.headerKey, input.headerValue, existing?.headerValueEncrypted ?? null, box, fields);
  const triggers = input.triggers.length > MAX_TRIGGERS ? [] : validateTriggers(input.triggers, "triggers", fields);
  if (input.triggers.length > MAX_TRIGGERS) fields.push({ field: "triggers", message: `must list at most ${MAX_TRIGGERS} triggers (${input.triggers.length} given)` });
  if (fields.length) throw invalidSettings(fields);

  const retarget = existing?.forwardingUrl !== url;
  await db.$transaction(async (tx) => {
    // A new URL starts a new run: failures of the old one do not count towards disabling it.
    const data = {
      forwardingUrl: url!,
      headerKey: header.key,
      headerValueEncrypted: header.sealedValue,
      updatedAt: clock.now(),
      ...(retarget ? { failingSince: null } : {}),
    };
    await tx.forwardingSettings.upsert({ where: { deploymentId }, create: { deploymentId, ...data }, update: data });
    await tx.forwardingTrigger.deleteMany({ where: { deploymentId } });
    if (triggers.length) await tx.forwardingTrigger.createMany({ data: triggers.map((t) => ({ deploymentId, ...t })) });
  });
  // Every PENDING delivery goes to the URL just saved, due at once (held while forwarding is paused
  // or disabled): the operator fixed the URL, the backlog should not keep its old schedule. Its own
  // statement after the settings commit (never one transaction with it: see ./status.ts); the claim
  // reads the URL from the settings anyway, so nothing can go to the old URL once the save committed.
  if (retarget) await deliveries.retarget(deploymentId);
  return (await getForwardingSettings(db, deploymentId))!;
}

export async function addForwardingTrigger(db: Db, clock: Clock, deploymentId: string, ref: TriggerRef): Promise<ForwardingSettingsView> {
  const fields: FieldError[] = [];
  const [trigger] = validateTriggers([ref], "trigger", fields);
  if (fields.length) throw badInput(fields[0].message, fields);
  await requireSettings(db, deploymentId);
  const existing = await db.forwardingTrigger.findUnique({ where: { deploymentId_connector_trigger: { deploymentId, ...trigger } } });
  if (existing) {
    throw badInput(`${trigger.connector}.${trigger.trigger} is already in the Forwarding Trigger List.`, [
      { field: "trigger", message: "already in the Forwarding Trigger List" },
    ]);
  }
  // A concurrent add of the same trigger loses on the unique index; treat it as the duplicate it is.
  await db.forwardingTrigger.createMany({ data: [{ deploymentId, ...trigger }], skipDuplicates: true });
  await db.forwardingSettings.update({ where: { deploymentId }, data: { updatedAt: clock.now() } });
  return (await getForwardingSettings(db, deploymentId))!;
}

export async function removeForwardingTrigger(db: Db, clock: Clock, deploymentId: string, ref: TriggerRef): Promise<ForwardingSettingsView> {
  await requireSettings(db, deploymentId);
  const { count } = await db.forwardingTrigger.deleteMany({ where: { deploymentId, connector: ref.connector, trigger: ref.trigger } });
  if (count === 0) {
    throw badInput(`${ref.connector}.${ref.trigger} is not in the Forwarding Trigger List.`, [
      { field: "trigger", message: "not in the Forwarding Trigger List" },
    ]);
  }
  await db.forwardingSettings.update({ where: { deploymentId }, data: { updatedAt: clock.now() } });
  return (await getForwardingSettings(db, deploymentId))!;
}

async function requireSettings(db: Db, deploymentId: string) {
  const settings = await db.forwardingSettings.findUnique({ where: { deploymentId }, select: { deploymentId: true } });
  if (!settings) {
    throw badInput("Save a forwarding URL first (saveForwardingSettings); triggers are forwarded to it.", [
      { field: "deploymentId", message: "has no forwarding settings yet" },
    ]);
  }
}

async function validateForwardingUrl(value: string, allowPrivateTargets: boolean, fields: FieldError[]): Promise<string | undefined> {
  const field = "forwardingUrl";
  const text = value.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    fields.push({ field, message: "must be an absolute http:// or https:// URL" });
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    fields.push({ field, message: "must use http or https" });
  } else if (text.length > MAX_URL_LENGTH) {
    fields.push({ field, message: `must be at most ${MAX_URL_LENGTH} characters` });
  } else if (url.username || url.password) {
    fields.push({ field, message: "must not contain credentials; use the header key and value instead" });
  } else if (!allowPrivateTargets) {
    const reason = await checkUrlTarget(url);
    if (reason) fields.push({ field, message: reason });
  }
  return url.toString();
}

function validateHeader(
  keyInput: string | null | undefined,
  valueInput: string | null | undefined,
  storedSealedValue: string | null,
  box: SecretBox,
  fields: FieldError[],
): { key: string | null; sealedValue: string | null } {
  const key = keyInput?.trim() || null;
  const value = valueInput === undefined || valueInput === null || valueInput === "" ? null : valueInput;
  if (!key) {
    if (value !== null) fields.push({ field: "headerKey", message: "is required when a header value is given" });
    return { key: null, sealedValue: null };
  }
  if (!TOKEN.test(key) || key.length > 256) {
    fields.push({ field: "headerKey", message: "must be a valid HTTP header name (letters, digits and !#$%&'*+-.^_`|~)" });
  } else if (RESERVED_HEADERS.has(key.toLowerCase()) || key.toLowerCase().startsWith("webhook-")) {
    fields.push({ field: "headerKey", message: `${key} is set by Switchyard itself; choose another header name` });
  }
  if (value === null) {
    // The console re-saves without re-typing the masked value: keep what is stored.
    if (storedSealedValue === null) fields.push({ field: "headerValue", message: "is required when a header key is given" });
    return { key, sealedValue: storedSealedValue };
  }
  if (value.length > MAX_HEADER_VALUE_LENGTH) {
    fields.push({ field: "headerValue", message: `must be at most ${MAX_HEADER_VALUE_LENGTH} characters` });
  } else if (value !== value.trim()) {
    fields.push({ field: "headerValue", message: "must not start or end with whitespace" });
  } else if (!FIELD_VALUE.test(value)) {
    fields.push({ field: "headerValue", message: "must be a valid HTTP header value: printable characters, spaces and tabs only (no control characters or line breaks)" });
  }
  return { key, sealedValue: box.seal(value) };
}

/** BAD_USER_INPUT naming the first MAX_REPORTED_ERRORS problems, and saying how many more there were. */
function invalidSettings(fields: FieldError[]) {
  const shown = fields.slice(0, MAX_REPORTED_ERRORS);
  const more = fields.length - shown.length;
  const message = shown.map((f) => `${f.field}: ${f.message}`).join("; ") + (more > 0 ? `; and ${more} more problems` : "");
  return badInput(message, shown);
}

/** An echoed input, short enough that an error message never grows with what was sent. */
const clip = (value: string) => (value.length > 100 ? `${value.slice(0, 100)}…` : value);

/** The connector's trigger names for an error message, at most ten of them (GitHub has hundreds). */
function someTriggers(names: string[]): string {
  return names.length <= 10 ? `it has ${names.join(", ")}` : `it has ${names.slice(0, 10).join(", ")} and ${names.length - 10} more; see the connector's triggers`;
}

function validateTriggers(refs: TriggerRef[], field: string, fields: FieldError[]): TriggerRef[] {
  const seen = new Set<string>();
  const valid: TriggerRef[] = [];
  refs.forEach((ref, i) => {
    const at = field === "triggers" ? `triggers.${i}` : field;
    const connector = findConnector(ref.connector);
    if (!connector) {
      fields.push({ field: at, message: `unknown connector "${clip(ref.connector)}"` });
      return;
    }
    if (!connector.triggers.some((t) => t.name === ref.trigger)) {
      fields.push({
        field: at,
        message: `${ref.connector} has no trigger "${clip(ref.trigger)}" (${someTriggers(connector.triggers.map((t) => t.name))})`,
      });
      return;
    }
    const id = `${ref.connector}.${ref.trigger}`;
    if (seen.has(id)) {
      fields.push({ field: at, message: `${id} is listed twice` });
      return;
    }
    seen.add(id);
    valid.push({ connector: ref.connector, trigger: ref.trigger });
  });
  return valid;
}
