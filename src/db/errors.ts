/**
 * A unique-constraint violation, however it surfaces: Prisma's P2002 (the pg adapter maps it), or
 * PostgreSQL's SQLSTATE 23505 carried raw by the PGlite adapter, which does not map errors.
 */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; cause?: { code?: string; kind?: string; originalCode?: string } } | undefined;
  return (
    e?.code === "P2002" ||
    e?.code === "23505" ||
    e?.cause?.code === "23505" ||
    e?.cause?.originalCode === "23505" ||
    e?.cause?.kind === "UniqueConstraintViolation"
  );
}

/**
 * PostgreSQL cancelled the statement because it ran past the request pool's statement_timeout
 * (SQLSTATE 57014, DATABASE_STATEMENT_TIMEOUT), raw from pg or wrapped by Prisma's pg adapter.
 */
export function isStatementTimeout(error: unknown): boolean {
  const e = error as { code?: string; message?: string; cause?: { code?: string; originalCode?: string; originalMessage?: string } } | undefined;
  if (e?.code === "57014" || e?.cause?.code === "57014" || e?.cause?.originalCode === "57014") return true;
  return /canceling statement due to statement timeout/.test(`${e?.message ?? ""} ${e?.cause?.originalMessage ?? ""}`);
}

/** What the caller of a cancelled statement reads, on both surfaces (no SQL, no setting's value). */
export const DATABASE_TIMEOUT_MESSAGE =
  "The database took too long to answer this request, so it was stopped. Ask for less (a narrower filter, a smaller page or window) or try again in a moment.";
