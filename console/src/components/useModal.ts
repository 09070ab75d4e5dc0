import { useEffect, useId, useRef } from "react";

/**
 * The native <dialog> opened as a modal while `open` (focus trapped, Escape cancels) and closed
 * otherwise, with an id for its heading: a page can hold several dialogs (closed ones stay in the
 * DOM), so each names itself by its own heading.
 */
export function useModal(open: boolean) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return { ref, titleId };
}
