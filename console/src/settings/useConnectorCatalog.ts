import { useQuery } from "urql";
import { graphql } from "../generated/gql.ts";

const CatalogQuery = graphql(`
  query ConsoleConnectorCatalog {
    connectors { name displayName triggers { name displayName description } }
  }
`);

export interface CatalogConnector {
  name: string;
  displayName: string;
  triggers: { name: string; displayName: string; description: string }[];
}

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
