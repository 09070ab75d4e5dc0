-- AlterTable
ALTER TABLE "connected_account" ADD COLUMN     "last_poll_error" TEXT,
ADD COLUMN     "last_poll_succeeded_at" TIMESTAMP(3),
ADD COLUMN     "last_polled_at" TIMESTAMP(3),
ADD COLUMN     "poll_failing_since" TIMESTAMP(3),
ADD COLUMN     "poll_failure_announced" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "poll_failures" INTEGER NOT NULL DEFAULT 0;

