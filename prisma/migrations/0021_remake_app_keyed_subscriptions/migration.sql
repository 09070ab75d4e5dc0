-- Box, monday and Jira sign their deliveries with one key for the whole app, so a delivery is now
-- bound to its subscription by a token in the URL Switchyard gives the provider (an HMAC of the
-- subscription's id). Subscriptions made before carry no token and would be refused: each live one
-- goes back to PENDING, due now, keeping its provider id — the subscription manager makes the new
-- one (with the token), then deletes the old one at the provider, as it does when a row's events change.
UPDATE "provider_subscription"
SET "status" = 'PENDING', "next_attempt_at" = now(), "lease_until" = NULL
WHERE "connector" IN ('box', 'monday', 'jira')
  AND "status" IN ('ACTIVE', 'FAILED')
  AND cardinality("events") > 0;
