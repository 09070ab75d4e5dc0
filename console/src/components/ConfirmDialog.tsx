import type { ReactNode } from "react";
import { useModal } from "./useModal.ts";

/** A modal question (the native <dialog>: focus is trapped, Escape cancels). */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  onConfirm(): void;
  onCancel(): void;
}) {
  const { ref, titleId } = useModal(props.open);
  return (
    <dialog ref={ref} className="dialog" aria-labelledby={titleId} onCancel={(event) => (event.preventDefault(), props.onCancel())}>
      <form
        method="dialog"
        onSubmit={(event) => {
          event.preventDefault();
          props.onConfirm();
        }}
      >
        <h2 id={titleId}>{props.title}</h2>
        <div className="dialog-body">{props.children}</div>
        <div className="actions">
          <button type="button" className="button" onClick={props.onCancel}>
            Cancel
          </button>
          <button type="submit" className={props.danger ? "button danger" : "button primary"} disabled={props.busy}>
            {props.busy ? "Working…" : props.confirmLabel}
          </button>
        </div>
      </form>
    </dialog>
  );
}
