import { BREAK, type DocumentNode, GraphQLError, visit } from "graphql";
import type { Plugin } from "graphql-yoga";

/**
 * Refuses an operation whose string input (a literal in the document or anywhere in the variables,
 * keys included) carries a NUL character or an unpaired UTF-16 surrogate (`"\ud800"`, which JSON
 * allows but no UTF-8 text can hold), before any resolver runs: PostgreSQL refuses both, so they
 * could only end as an internal error. One rule for every field, present and future, instead of a
 * check in each resolver.
 */
export function useUnstorableInputGuard(): Plugin & { refuses(document: DocumentNode, variables: unknown): boolean } {
  // yoga's parser cache hands out one DocumentNode per query text, so each document is walked once
  // (per app: each yoga has its own plugin, and its own documents).
  const checkedDocuments = new WeakMap<DocumentNode, boolean>();
  const documentHasUnstorable = (document: DocumentNode): boolean => {
    let found = checkedDocuments.get(document);
    if (found === undefined) checkedDocuments.set(document, (found = literalsHaveUnstorable(document)));
    return found;
  };
  const refuse = (document: DocumentNode, variables: unknown) =>
    documentHasUnstorable(document) || hasUnstorable(variables, 0)
      ? {
          errors: [
            new GraphQLError("A string argument contains a NUL character (\\u0000) or an unpaired surrogate (such as \\ud800), which are not allowed.", {
              extensions: { code: "BAD_USER_INPUT" },
            }),
          ],
        }
      : undefined;
  return {
    // The plain-request fast path (./plainRequests.ts) asks first and leaves any refusal to yoga's own path.
    refuses: (document, variables) => documentHasUnstorable(document) || hasUnstorable(variables, 0),
    onExecute: ({ args, setResultAndStopExecution }) => {
      const result = refuse(args.document, args.variableValues);
      if (result) setResultAndStopExecution(result);
    },
    onSubscribe: ({ args, setResultAndStopExecution }) => {
      const result = refuse(args.document, args.variableValues);
      if (result) setResultAndStopExecution(result);
    },
  };
}

function literalsHaveUnstorable(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    StringValue(node) {
      if (unstorable(node.value)) {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}

// Variables come from JSON.parse of a body capped at 1 MiB, so they are finite; the depth bound
// only keeps the walk's stack small.
function hasUnstorable(value: unknown, depth: number): boolean {
  if (typeof value === "string") return unstorable(value);
  if (value === null || typeof value !== "object" || depth > 64) return false;
  if (Array.isArray(value)) return value.some((item) => hasUnstorable(item, depth + 1));
  return Object.entries(value).some(([key, item]) => unstorable(key) || hasUnstorable(item, depth + 1));
}

const UNSTORABLE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const unstorable = (text: string) => UNSTORABLE.test(text);
