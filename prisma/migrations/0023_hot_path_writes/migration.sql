-- DropIndex
DROP INDEX "trigger_event_connected_account_id_received_at_idx";

-- CreateIndex
CREATE INDEX "trigger_event_connected_account_id_received_at_idx" ON "trigger_event"("connected_account_id", "received_at");

