/** What the webhook builders return: POST it as-is (`fetch(url, { method: "POST", headers, body })`). */
export interface SignedRequest {
  headers: Record<string, string>;
  body: string;
}
