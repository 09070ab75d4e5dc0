/**
 * Who is calling. A console user sees their organizations; an API key is a deployment principal
 * that sees only its own deployment.
 */
export type Principal =
  | { kind: "user"; userId: string; sessionId: string }
  | { kind: "apiKey"; apiKeyId: string; deploymentId: string };

export const SESSION_COOKIE = "sy_session";

/** Reads `Authorization: Bearer <token>` first, then the `sy_session` cookie. */
export function sessionTokenFrom(headers: { authorization?: string; cookie?: string }): string | undefined {
  const authorization = headers.authorization;
  if (authorization?.toLowerCase().startsWith("bearer ")) return authorization.slice(7).trim() || undefined;
  const cookie = headers.cookie;
  if (!cookie) return undefined;
  // Every console request asks (the request guard, then the context): no arrays per cookie.
  for (const part of cookie.split(";")) {
    const pair = part.trim();
    const equals = pair.indexOf("=");
    if ((equals < 0 ? pair : pair.slice(0, equals)) === SESSION_COOKIE) return decodeCookieValue(equals < 0 ? "" : pair.slice(equals + 1)) || undefined;
  }
  return undefined;
}

/** A cookie value that is not valid percent-encoding (`sy_session=%`) names no session: treated as absent. */
function decodeCookieValue(value: string): string | undefined {
  if (!value.includes("%")) return value; // what decodeURIComponent would return, without its cost
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

export function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure ? "; Secure" : ""}`;
}

export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure ? "; Secure" : ""}`;
}
