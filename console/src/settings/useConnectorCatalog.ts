import type { ResultOf } from "@graphql-typed-document-node/core";
import { useQuery } from "urql";
import { graphql } from "../generated/gql.ts";

const CatalogQuery = graphql(`
  query ConsoleConnectorCatalog {
    connectors { name displayName category icon authMode revokesGrantOnDelete triggers { name displayName description providerEvent } }
  }
`);

export type CatalogConnector = ResultOf<typeof CatalogQuery>["connectors"][number];
export type CatalogTrigger = CatalogConnector["triggers"][number];

/** The connectors and their triggers, for the trigger pickers; with a readable label for a pair. */
export function useConnectorCatalog() {
  const [{ data, error }] = useQuery({ query: CatalogQuery });
  const connectors: CatalogConnector[] = data?.connectors ?? [];
  const label = (connector: string, trigger: string) => {
    const c = connectors.find((x) => x.name === connector);
    const t = c?.triggers.find((x) => x.name === trigger);
    return `${c?.displayName ?? connector} · ${t?.displayName ?? trigger}`;
  };
  return { connectors, loaded: Boolean(data), error, label };
}

/** The end user types credentials (an API key, a user and password) rather than signing in at the provider. */
export const keyed = (connector: { authMode: string }) => connector.authMode === "API_KEY" || connector.authMode === "BASIC";

/** "issue_tracker" → "issue tracker". */
export const categoryLabel = (category: string) => category.replace(/_/g, " ");

/** The icon as an <img> source: the SVG is never inserted as markup. */
export const iconSource = (svg: string) => `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;

/**
 * Every word of the query appears somewhere in the text (case-insensitive; `_`, `.` and `-` count
 * as spaces, so "pull request merged", "pull_request" and "issues.opened" all find their trigger).
 */
export function matchesQuery(query: string, ...texts: string[]): boolean {
  const normalize = (s: string) => s.toLowerCase().replace(/[_.\-]+/g, " ");
  const haystack = normalize(texts.join(" "));
  return normalize(query)
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => haystack.includes(word));
}
