-- CreateIndex
CREATE INDEX "delivery_status_locked_until_idx" ON "delivery"("status", "locked_until");

