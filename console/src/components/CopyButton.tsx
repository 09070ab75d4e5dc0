import { useState } from "react";
import { useToast } from "./Toasts.tsx";

/** Copies `value`; falls back to a hidden textarea where the Clipboard API is unavailable (plain http). */
export function CopyButton({ value, label = "Copy" }: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  const toast = useToast();
  const copy = async () => {
    try {
      if (navigator.clipboard && window.isSecureContext) {
        await navigator.clipboard.writeText(value);
      } else {
        const area = document.createElement("textarea");
        area.value = value;
        area.setAttribute("readonly", "");
        area.style.position = "fixed";
        area.style.opacity = "0";
        document.body.appendChild(area);
        area.select();
        const ok = document.execCommand("copy");
        area.remove();
        if (!ok) throw new Error("copy refused");
      }
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch {
      toast.error("The browser did not allow copying. Select the text and copy it by hand.");
    }
  };
  return (
    <button type="button" className="button small" onClick={copy}>
      {copied ? "Copied ✓" : label}
    </button>
  );
}
