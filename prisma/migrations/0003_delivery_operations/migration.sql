-- CreateEnum
CREATE TYPE "ForwardingStatus" AS ENUM ('ACTIVE', 'PAUSED', 'DISABLED');

-- AlterEnum
ALTER TYPE "DeliveryStatus" ADD VALUE 'CANCELLED';

-- DropIndex
DROP INDEX "trigger_event_deployment_id_received_at_idx";

-- AlterTable
ALTER TABLE "forwarding_settings" ADD COLUMN     "disabled_reason" TEXT,
ADD COLUMN     "failing_since" TIMESTAMP(3),
ADD COLUMN     "last_success_at" TIMESTAMP(3),
ADD COLUMN     "status" "ForwardingStatus" NOT NULL DEFAULT 'ACTIVE',
ADD COLUMN     "status_changed_at" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "delivery" ADD COLUMN     "cycle_start" INTEGER NOT NULL DEFAULT 0,
ALTER COLUMN "url" DROP NOT NULL,
ALTER COLUMN "next_attempt_at" DROP NOT NULL;

-- AlterTable
ALTER TABLE "delivery_attempt" ADD COLUMN     "url" TEXT;

-- CreateIndex
CREATE INDEX "session_expires_at_idx" ON "session"("expires_at");

-- CreateIndex
CREATE INDEX "connect_session_expires_at_idx" ON "connect_session"("expires_at");

-- CreateIndex
CREATE INDEX "trigger_event_deployment_id_received_at_id_idx" ON "trigger_event"("deployment_id", "received_at", "id");

-- CreateIndex
CREATE INDEX "trigger_event_received_at_idx" ON "trigger_event"("received_at");

-- CreateIndex
CREATE INDEX "delivery_deployment_id_status_created_at_idx" ON "delivery"("deployment_id", "status", "created_at");

