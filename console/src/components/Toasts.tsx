import { createContext, type ReactNode, useCallback, useContext, useMemo, useRef, useState } from "react";

type Kind = "error" | "success" | "info";
interface Toast {
  id: number;
  kind: Kind;
  message: string;
}
interface Toaster {
  error(message: string): void;
  success(message: string): void;
  info(message: string): void;
}

const ToastContext = createContext<Toaster | null>(null);

/** Messages in the corner: errors stay until dismissed (they say what to do), others fade. */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const next = useRef(1);
  const dismiss = useCallback((id: number) => setToasts((list) => list.filter((toast) => toast.id !== id)), []);
  const push = useCallback(
    (kind: Kind, message: string) => {
      const id = next.current++;
      setToasts((list) => [...list.filter((toast) => toast.message !== message).slice(-3), { id, kind, message }]);
      if (kind !== "error") setTimeout(() => dismiss(id), 4000);
    },
    [dismiss],
  );
  const toaster = useMemo<Toaster>(
    () => ({ error: (m) => push("error", m), success: (m) => push("success", m), info: (m) => push("info", m) }),
    [push],
  );
  return (
    <ToastContext.Provider value={toaster}>
      {children}
      <div className="toasts" aria-live="polite">
        {toasts.map((toast) => (
          <div key={toast.id} className={`toast toast-${toast.kind}`} role={toast.kind === "error" ? "alert" : "status"}>
            <span>{toast.message}</span>
            <button type="button" className="icon-button" aria-label="Dismiss" onClick={() => dismiss(toast.id)}>
              ×
            </button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}

export function useToast(): Toaster {
  const toaster = useContext(ToastContext);
  if (!toaster) throw new Error("useToast outside ToastProvider");
  return toaster;
}
