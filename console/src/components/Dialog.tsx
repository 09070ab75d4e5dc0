import type { ReactNode } from "react";
import { useModal } from "./useModal.ts";

/** A modal panel with its own content and a Close button (the native <dialog>: focus trapped, Escape closes). */
export function Dialog(props: { open: boolean; title: string; children: ReactNode; onClose(): void }) {
  const { ref, titleId } = useModal(props.open);
  return (
    <dialog ref={ref} className="dialog wide" aria-labelledby={titleId} onCancel={(event) => (event.preventDefault(), props.onClose())}>
      <h2 id={titleId}>{props.title}</h2>
      <div className="dialog-body">{props.open && props.children}</div>
      <div className="actions">
        <button type="button" className="button" onClick={props.onClose}>
          Close
        </button>
      </div>
    </dialog>
  );
}
