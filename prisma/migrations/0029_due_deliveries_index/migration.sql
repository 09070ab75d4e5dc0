-- The claim reads due PENDING deliveries oldest first (src/delivery/queue/claim.ts). Its index held
-- every delivery by (status, next_attempt_at), so each delivery that finished wrote an entry for its
-- new status that no statement reads. Partial on PENDING, a finished delivery leaves it: one index
-- entry fewer per forwarded event, and the index is the queue's size, not the history's.
CREATE INDEX "delivery_due_idx" ON "delivery"("next_attempt_at") WHERE "status" = 'PENDING';
DROP INDEX "delivery_status_next_attempt_at_idx";
