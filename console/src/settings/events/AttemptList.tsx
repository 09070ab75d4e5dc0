import { Fragment } from "react";
import { formatSeconds } from "../../format.ts";
import type { Attempt } from "./eventLog.ts";

/** A delivery's attempts, oldest first: when, how long, the answer, the headers sent and the body received. */
export function AttemptList({ attempts }: { attempts: Attempt[] }) {
  return (
    <ol className="attempts" aria-label="Attempts">
      {attempts.map((attempt) => (
        <li key={attempt.number} className="attempt" data-attempt={attempt.number}>
          <div className="attempt-head">
            <strong>#{attempt.number}</strong> {formatSeconds(attempt.startedAt)} · {attempt.durationMs} ms ·{" "}
            <span className={`badge ${attempt.statusCode && attempt.statusCode < 300 ? "ok" : "bad"}`}>
              {attempt.statusCode ? `HTTP ${attempt.statusCode}` : (attempt.error ?? "no answer")}
            </span>
            {attempt.retryAfterSeconds !== null && attempt.retryAfterSeconds !== undefined && (
              <span className="attempt-retry-after"> · asked to retry after {attempt.retryAfterSeconds} s</span>
            )}
            {attempt.url && <code className="attempt-url">{attempt.url}</code>}
          </div>
          <details>
            <summary>Request headers</summary>
            <dl className="headers">
              {attempt.requestHeaders.map((header) => (
                <Fragment key={header.name}>
                  <dt>{header.name}</dt>
                  <dd>
                    <code>{header.value}</code>
                  </dd>
                </Fragment>
              ))}
            </dl>
          </details>
          {attempt.responseBody !== null && attempt.responseBody !== undefined && (
            <details open={attempt.number === attempts.length}>
              <summary>Response body</summary>
              <pre className="payload" tabIndex={0} role="region" aria-label={`Response body of attempt ${attempt.number}`}>
                {attempt.responseBody || "(empty)"}
              </pre>
            </details>
          )}
        </li>
      ))}
    </ol>
  );
}
