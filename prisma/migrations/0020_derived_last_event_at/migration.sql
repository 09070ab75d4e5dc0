-- AlterTable
ALTER TABLE "connected_account" DROP COLUMN "last_event_at";

-- CreateIndex
CREATE INDEX "trigger_event_connected_account_id_received_at_idx" ON "trigger_event"("connected_account_id", "received_at" DESC);

