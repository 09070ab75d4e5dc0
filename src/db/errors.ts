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
