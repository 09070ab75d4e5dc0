-- CreateEnum
CREATE TYPE "ProviderSubscriptionStatus" AS ENUM ('PENDING', 'ACTIVE', 'FAILED', 'DELETED');

-- AlterTable
ALTER TABLE "deployment" ADD COLUMN     "allowed_redirect_origins" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "connect_session" ADD COLUMN     "params" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN     "redirect_url" TEXT;

-- AlterTable
ALTER TABLE "connected_account" ADD COLUMN     "display_name" TEXT,
ADD COLUMN     "last_event_at" TIMESTAMP(3),
ADD COLUMN     "next_poll_at" TIMESTAMP(3),
ADD COLUMN     "params" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN     "poll_lease_until" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "provider_subscription" (
    "id" TEXT NOT NULL,
    "deployment_id" TEXT NOT NULL,
    "connected_account_id" TEXT NOT NULL,
    "connector" TEXT NOT NULL,
    "resource" TEXT NOT NULL DEFAULT '',
    "events" TEXT[],
    "status" "ProviderSubscriptionStatus" NOT NULL DEFAULT 'PENDING',
    "provider_id" TEXT,
    "provider_resource_id" TEXT,
    "secret_encrypted" TEXT,
    "cursor" TEXT,
    "expires_at" TIMESTAMP(3),
    "last_renewed_at" TIMESTAMP(3),
    "last_error" TEXT,
    "next_attempt_at" TIMESTAMP(3),
    "lease_until" TIMESTAMP(3),
    "failing_since" TIMESTAMP(3),
    "failures" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "provider_subscription_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "provider_subscription_connected_account_id_idx" ON "provider_subscription"("connected_account_id");

-- CreateIndex
CREATE INDEX "provider_subscription_next_attempt_at_idx" ON "provider_subscription"("next_attempt_at");

-- CreateIndex
CREATE INDEX "provider_subscription_connector_provider_id_idx" ON "provider_subscription"("connector", "provider_id");

-- CreateIndex
CREATE INDEX "connected_account_deployment_id_created_at_idx" ON "connected_account"("deployment_id", "created_at");

-- CreateIndex
CREATE INDEX "connected_account_next_poll_at_idx" ON "connected_account"("next_poll_at");

-- AddForeignKey
ALTER TABLE "provider_subscription" ADD CONSTRAINT "provider_subscription_deployment_id_fkey" FOREIGN KEY ("deployment_id") REFERENCES "deployment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "provider_subscription" ADD CONSTRAINT "provider_subscription_connected_account_id_fkey" FOREIGN KEY ("connected_account_id") REFERENCES "connected_account"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- One live subscription per (account, resource): two instances can never both create one.
-- (Partial, so Prisma's schema cannot say it; DELETED rows stay as history.)
CREATE UNIQUE INDEX "provider_subscription_live_key" ON "provider_subscription"("connected_account_id", "resource") WHERE "status" <> 'DELETED';
