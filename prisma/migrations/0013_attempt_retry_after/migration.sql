-- AlterTable
ALTER TABLE "delivery_attempt" ADD COLUMN     "retry_after_seconds" INTEGER;


-- The claim counts the attempts in flight to each forwarding URL (DELIVERY_MAX_IN_FLIGHT_PER_URL):
-- leased rows only, a handful however deep the queue. (Partial, so Prisma's schema cannot say it.)
CREATE INDEX "delivery_in_flight_url_idx" ON "delivery"("url") WHERE "locked_until" IS NOT NULL;
