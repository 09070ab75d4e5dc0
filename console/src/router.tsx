import { type AnchorHTMLAttributes, type MouseEvent, useEffect, useSyncExternalStore } from "react";

/**
 * A small history-API router: the console has a handful of pages, so a path and a list of
 * patterns are all it needs. Every path is under /console (the base the service serves it at).
 */

export const BASE = "/console";

const listeners = new Set<() => void>();
const subscribe = (listener: () => void) => {
  listeners.add(listener);
  window.addEventListener("popstate", listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("popstate", listener);
  };
};
const notify = () => listeners.forEach((listener) => listener());

/** Asked before leaving a page with unsaved changes; the page sets it, navigate() honours it. */
let leaveGuard: (() => boolean) | undefined;
export function setLeaveGuard(guard: (() => boolean) | undefined) {
  leaveGuard = guard;
}

export function navigate(to: string, options: { replace?: boolean } = {}) {
  const target = to.startsWith(BASE) ? to : `${BASE}${to}`;
  if (target === location.pathname + location.search) return;
  if (leaveGuard && !leaveGuard()) return;
  if (options.replace) history.replaceState(null, "", target);
  else history.pushState(null, "", target);
  notify();
  window.scrollTo(0, 0);
}

/** The current path without the /console base, e.g. "/organizations/abc". */
export function usePath(): string {
  const full = useSyncExternalStore(subscribe, () => location.pathname);
  const path = full.startsWith(BASE) ? full.slice(BASE.length) : full;
  return path.replace(/\/+$/, "") || "/";
}

export function useSearchParam(name: string): string | null {
  const search = useSyncExternalStore(subscribe, () => location.search);
  return new URLSearchParams(search).get(name);
}

/** Matches "/deployments/:id/:section" against a path; the params or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split("/").filter(Boolean);
  const got = path.split("/").filter(Boolean);
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(":")) params[want[i].slice(1)] = decodeURIComponent(got[i]);
    else if (want[i] !== got[i]) return null;
  }
  return params;
}

export function Link({ to, onClick, ...props }: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  const href = to.startsWith(BASE) ? to : `${BASE}${to}`;
  const click = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={click} {...props} />;
}

/** Replaces the current entry: for pages that only decide where to go. */
export function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}
