import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import { useState } from "react";
import { type AnyVariables, useMutation } from "urql";
import { describeError } from "../errors.ts";
import { useToast } from "./Toasts.tsx";

/**
 * The console's "are you sure?" dance, once: `ask(subject)` opens the <ConfirmDialog> (spread
 * `dialog` into it), confirming runs the mutation for that subject, closes the dialog, and says how
 * it went in a toast: the error in words, or `success`'s message; then `done` (reload, navigate…).
 * `run(subject)` does the same without asking. The subject is what the dialog is about (a member, an
 * item); omit it when there is only one thing to confirm.
 */
export function useConfirmedMutation<Data, Variables extends AnyVariables, Subject = void>(
  document: TypedDocumentNode<Data, Variables>,
  options: {
    variables(subject: Subject): Variables;
    /** The success toast; none when absent. */
    success?(subject: Subject, data: Data): string;
    done?(data: Data, subject: Subject): void;
  },
) {
  const [asking, setAsking] = useState<{ subject: Subject }>();
  const [state, mutate] = useMutation(document);
  const toast = useToast();
  const run = async (subject: Subject) => {
    const result = await mutate(options.variables(subject));
    setAsking(undefined);
    if (result.error) return toast.error(describeError(result.error));
    const data = result.data as Data;
    if (options.success) toast.success(options.success(subject, data));
    options.done?.(data, subject);
  };
  return {
    /** What the open dialog is about (undefined when it is closed). */
    subject: asking?.subject,
    ask: (subject: Subject) => setAsking({ subject }),
    run,
    busy: state.fetching,
    /** The <ConfirmDialog> props this hook owns. */
    dialog: {
      open: Boolean(asking),
      busy: state.fetching,
      onConfirm: () => void (asking && run(asking.subject)),
      onCancel: () => setAsking(undefined),
    },
  };
}
