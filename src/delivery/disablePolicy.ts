/**
 * When forwarding turns itself off (FORWARDING_DISABLE_AFTER), beside retryPolicy.ts (when one
 * delivery is tried again).
 *
 * The deployment's settings keep a run of failures for the forwarding URL in force:
 *
 * - a success ends the run (`failing_since` null) and notes `last_success_at`;
 * - a failure with no run starts one at that attempt's start (`failing_since`);
 * - a failure when the run is at least FORWARDING_DISABLE_AFTER old turns ACTIVE forwarding
 *   DISABLED, with a reason for the operator; its queued deliveries are then held (none is dropped)
 *   until resumeForwarding, which starts the run afresh, as a new forwarding URL does.
 *
 * Attempts to a URL that is no longer in force (re-targeted meanwhile) count for nothing. The
 * settings row is written only when one of those changes (or, on success, once a minute for
 * last_success_at), so a healthy endpoint costs no extra write.
 *
 * It is applied in the queue's recordAttempts statement (queue/recordAttempts.ts) to each batch of
 * attempts, grouped by deployment and URL, so the bookkeeping commits with the attempts it counts.
 * These fragments are that statement's parts. The run's age is measured on the app's clock (the
 * `now` parameter, clock.now()), as the attempts' start times it begins at are: a test moves a fake
 * clock past FORWARDING_DISABLE_AFTER instead of waiting for it.
 */

/**
 * Per (deployment, url) of the batch — `f(deployment_id, url, ok, first_failure)` — against the
 * settings `s`: whether this batch disables forwarding.
 */
export const disables = (now: string, disableAfter: string) =>
  `not f.ok and s.status = 'ACTIVE' and coalesce(s.failing_since, f.first_failure) <= ${now}::timestamp - (${disableAfter}::bigint * interval '1 millisecond')`;

/** The reason shown to the operator (`x` is the batch's verdict, the settings row is being updated). */
export const DISABLED_REASON = `'Every delivery attempt to ' || forwarding_settings.forwarding_url || ' has failed since '
  || to_char(coalesce(forwarding_settings.failing_since, x.first_failure), 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
  || ' with no success in between. Deliveries are held, none is dropped: fix the endpoint, then resume forwarding.'`;

/** Whether the settings row needs writing at all for this verdict (`now`: the app's clock). */
export const settingsChange = (now: string) => `(x.disable
  or (x.ok and (forwarding_settings.failing_since is not null or forwarding_settings.last_success_at is null
                or forwarding_settings.last_success_at < ${now}::timestamp - interval '1 minute'))
  or (not x.ok and forwarding_settings.failing_since is null))`;
