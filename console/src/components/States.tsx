import type { ReactNode } from "react";
import type { CombinedError } from "urql";
import { describeError } from "../errors.ts";

export function Loading({ what = "Loading" }: { what?: string }) {
  return (
    <div className="state" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> {what}…
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state empty">
      <strong>{title}</strong>
      {children && <div>{children}</div>}
    </div>
  );
}

export function LoadError({ error, retry }: { error: CombinedError; retry?: () => void }) {
  return (
    <div className="state error" role="alert">
      <span>{describeError(error)}</span>
      {retry && (
        <button type="button" className="button small" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** For a part of the console whose API has not shipped in this build of the service. */
export function Unavailable({ what, needs }: { what: string; needs: string }) {
  return (
    <div className="state unavailable">
      <strong>{what} is not available yet</strong>
      <div>
        This version of the Switchyard service does not offer it through its API yet (it needs <code>{needs}</code>). It will
        appear here once the service supports it.
      </div>
    </div>
  );
}
